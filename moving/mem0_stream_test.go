package moving

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"iter"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/memory"
)

// mem0Sentences are the texts of generated memories: lasting ones, passing
// ones, a decision and an appointment, so that every path of the classifier
// is taken.
var mem0Sentences = []string{
	"Is a vegetarian and has been for %d years",
	"Prefers dark mode in editor number %d",
	"Feeling stressed about launch %d today",
	"The nightly backup %d is still running, ETA 10 minutes",
	"Has a dentist appointment on June %d",
	"Goes running every morning, %d kilometres",
	"Decided to use PostgreSQL instead of MySQL for service %d because of JSONB support",
	"Works on the billing team since release %d",
}

// writeMem0Export writes a get_all answer of n memories spread over users,
// as Mem0 writes them: each is about 320 bytes, and pad bytes more of
// metadata (a note the application kept with it).
func writeMem0Export(w io.Writer, n, users, pad int) error {
	note := strings.Repeat("the customer asked again about the invoice ", pad/43+1)[:pad]
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(`{"results": [`)
	for i := range n {
		if i > 0 {
			bw.WriteString(",\n")
		}
		day := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i%2000) * time.Hour)
		fmt.Fprintf(bw, `{"id": "6a0e1b6e-%012d", "memory": %q, "hash": "%08x", "metadata": {"app": "support-chat", "session": %d, "note": %q}, `+
			`"categories": ["personal_details", "preferences"], "created_at": %q, "updated_at": null, "user_id": "user-%d"}`,
			i, fmt.Sprintf(mem0Sentences[i%len(mem0Sentences)], i%28+1), uint32(i)*2654435761, i%977, note,
			day.Format("2006-01-02T15:04:05.000000-07:00"), i%users)
	}
	bw.WriteString("],\n\"relations\": []}\n")
	return bw.Flush()
}

// sinkPusher takes the batches of an import as a store would, writing
// nothing; each is told to batch.
type sinkPusher struct {
	batch func(i int, b memory.PushBatch)
}

func (s sinkPusher) PushStream(ctx context.Context, actor memory.Actor, batches iter.Seq2[memory.PushBatch, error], opts memory.PushStreamOptions) error {
	i := 0
	for b, err := range batches {
		if err != nil {
			return err
		}
		s.batch(i, b)
		if opts.Pushed != nil {
			if err := opts.Pushed(i, memory.PushResult{IDs: make([]int64, len(b.Nodes))}); err != nil {
				return err
			}
		}
		i++
	}
	return nil
}

// TestMem0ImportStreams: the first batch reaches the store, and is written
// in the import's transaction, while the file is still being written (its
// writer waits for that batch before it writes the rest): the import holds
// no more of the file than a batch. The rest then lands in the same
// transaction.
func TestMem0ImportStreams(t *testing.T) {
	ctx := context.Background()
	pool, store := tenure(t)
	pr, pw := io.Pipe()
	firstBatch := make(chan struct{})
	written := make(chan error, 1)
	go func() {
		var doc strings.Builder
		if err := writeMem0Export(&doc, 1500, 1, 0); err != nil {
			written <- err
			return
		}
		// The first 1,000 memories, then nothing until a batch was pushed.
		head, tail, _ := strings.Cut(doc.String(), `"id": "6a0e1b6e-000000001000"`)
		if _, err := io.WriteString(pw, head); err != nil {
			written <- err
			return
		}
		select {
		case <-firstBatch:
		case <-time.After(time.Minute):
			err := fmt.Errorf("no batch was pushed while the file was written")
			pw.CloseWithError(err)
			written <- err
			return
		}
		_, err := io.WriteString(pw, `"id": "6a0e1b6e-000000001000"`+tail)
		pw.CloseWithError(err)
		written <- err
	}()

	var sizes []int
	pusher := observingPusher{Store: store, batch: func(i int, b memory.PushBatch) {
		sizes = append(sizes, len(b.Nodes))
		if i == 0 {
			close(firstBatch)
		}
	}}
	rows := PlanMem0Stream(StreamMem0(pr), Mem0Options{ScopePerUser: true}, mem0Now)
	report, err := ImportMem0Stream(ctx, pusher, memory.System(memory.SourceImport), rows, Mem0Options{ScopePerUser: true})
	if werr := <-written; werr != nil {
		t.Fatal(werr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if report.Memories != 1500 || report.Rows != 1500 || report.Batches != 2 || report.Scopes["user-0"] != 1500 ||
		fmt.Sprint(sizes) != "[1000 500]" {
		t.Errorf("report = %+v, batches of %v; want 1,500 rows in batches of 1,000 and 500", report, sizes)
	}
	if n := count(t, pool, `SELECT count(*) FROM memory_nodes WHERE scope = 'user-0'`); n != 1500 {
		t.Errorf("%d rows written, want 1500", n)
	}
}

// observingPusher pushes through the store, telling batch of each batch
// before the store writes it.
type observingPusher struct {
	*memory.Store
	batch func(i int, b memory.PushBatch)
}

func (o observingPusher) PushStream(ctx context.Context, actor memory.Actor, batches iter.Seq2[memory.PushBatch, error], opts memory.PushStreamOptions) error {
	return o.Store.PushStream(ctx, actor, func(yield func(memory.PushBatch, error) bool) {
		i := 0
		for b, err := range batches {
			if err == nil {
				o.batch(i, b)
			}
			i++
			if !yield(b, err) {
				return
			}
		}
	}, opts)
}

// TestMem0ImportHeapStaysFlat reads, plans and hands on an export of
// 55 MB (70,000 memories of 100 users, written as it is read) and watches
// the live heap after each batch: it grows by a few tens of MiB at most,
// the rows held while batches of 100 scopes fill, where holding the whole
// file took about ten times its size.
func TestMem0ImportHeapStaysFlat(t *testing.T) {
	const memories, users, pad = 70_000, 100, 500
	pr, pw := io.Pipe()
	size := make(chan int64, 1)
	go func() {
		cw := &countingWriter{w: pw}
		pw.CloseWithError(writeMem0Export(cw, memories, users, pad))
		size <- cw.n
	}()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	read := func() (live, cycles uint64) {
		metrics.Read(sample)
		return sample[0].Value.Uint64(), sample[1].Value.Uint64()
	}
	runtime.GC()
	base, cycles0 := read()
	peak := base
	pusher := sinkPusher{batch: func(int, memory.PushBatch) {
		live, _ := read()
		peak = max(peak, live)
	}}
	start := time.Now()
	rows := PlanMem0Stream(StreamMem0(pr), Mem0Options{ScopePerUser: true}, mem0Now)
	report, err := ImportMem0Stream(context.Background(), pusher, memory.System(memory.SourceImport), rows, Mem0Options{ScopePerUser: true})
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	if report.Memories != memories || report.Rows != memories || len(report.Scopes) != users {
		t.Fatalf("report = %d memories, %d rows, %d scopes; want %d, %d, %d", report.Memories, report.Rows, len(report.Scopes), memories, memories, users)
	}
	bytes := <-size
	_, cycles1 := read()
	gcs := cycles1 - cycles0
	grew := int64(peak) - int64(base)
	t.Logf("%d MB export, %d memories in %d batches in %v (%.0f memories/s); live heap %.1f MiB, peak %.1f MiB (+%.1f) over %d GC cycles",
		bytes>>20, memories, report.Batches, elapsed.Round(time.Millisecond), float64(memories)/elapsed.Seconds(),
		float64(base)/(1<<20), float64(peak)/(1<<20), float64(grew)/(1<<20), gcs)
	if bytes < 50<<20 {
		t.Fatalf("the export is %d bytes; the check wants at least 50 MiB", bytes)
	}
	if gcs < 3 {
		t.Fatalf("only %d garbage collections during the import: the live heap was not measured", gcs)
	}
	if grew > 64<<20 {
		t.Errorf("the live heap grew by %.1f MiB over an import of %d MB: the import holds the file", float64(grew)/(1<<20), bytes>>20)
	}
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// TestMem0BatchesOfInterleavedScopes: rows of one scope wait for a full
// batch; when more than mem0MaxHeld rows of many scopes wait, the fullest
// batch goes early. Every batch holds one scope, rows keep their order in
// it, and every row goes once.
func TestMem0BatchesOfInterleavedScopes(t *testing.T) {
	const scopes, each = 12, 1000
	var doc strings.Builder
	doc.WriteString("[")
	for i := range scopes * each {
		if i > 0 {
			doc.WriteString(",")
		}
		fmt.Fprintf(&doc, `{"id": "m%d", "memory": "Likes tea number %d", "user_id": "user-%d"}`, i, i, i%scopes)
	}
	doc.WriteString("]")
	next := map[string]int{} // scope → the index of its next memory
	early := 0
	pusher := sinkPusher{batch: func(_ int, b memory.PushBatch) {
		if len(b.Nodes) > memory.MaxPushBatch {
			t.Errorf("a batch of %d rows", len(b.Nodes))
		}
		if len(b.Nodes) < memory.MaxPushBatch {
			early++
		}
		for _, n := range b.Nodes {
			var i int
			if _, err := fmt.Sscanf(n.Content, "Likes tea number %d", &i); err != nil || fmt.Sprintf("user-%d", i%scopes) != b.Scope {
				t.Fatalf("row %q in a batch of scope %s", n.Content, b.Scope)
			}
			if want, ok := next[b.Scope]; ok && i != want {
				t.Fatalf("scope %s: row %d after %d", b.Scope, i, want-scopes)
			}
			next[b.Scope] = i + scopes
		}
	}}
	rows := PlanMem0Stream(StreamMem0(strings.NewReader(doc.String())), Mem0Options{ScopePerUser: true}, mem0Now)
	report, err := ImportMem0Stream(context.Background(), pusher, memory.System(memory.SourceImport), rows, Mem0Options{ScopePerUser: true})
	if err != nil {
		t.Fatal(err)
	}
	if report.Rows != scopes*each || len(report.Scopes) != scopes || len(next) != scopes {
		t.Errorf("report = %+v", report)
	}
	for s, n := range next {
		if n < scopes*each {
			t.Errorf("scope %s ends at row %d", s, n)
		}
	}
	// 12 scopes of 1,000 interleaved: their batches fill together, and the
	// 10,001st waiting row sends the fullest early.
	if early == 0 || report.Batches <= scopes {
		t.Errorf("%d batches, %d of them early; want some sent early", report.Batches, early)
	}
}

// TestMem0ReadsAroundTheList: the keys beside the results list, before or
// after it and however nested, are read past; the memories are named by
// their place in the list.
func TestMem0ReadsAroundTheList(t *testing.T) {
	doc := `{"relations": [{"source": "alex", "relationship": "likes", "target": {"name": "tea", "tags": [[1], {"a": null}]}}],
		"results": [{"id": "a", "memory": "Likes tea", "user_id": "alex"}, {"id": "b", "memory": "Likes coffee"}],
		"page": {"next": null, "counts": [1, 2]}, "total": 2}`
	var paths []string
	for m, err := range StreamMem0(strings.NewReader(doc)) {
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m.Path+" "+m.Text)
	}
	if strings.Join(paths, "; ") != "results[0] Likes tea; results[1] Likes coffee" {
		t.Errorf("read %q", paths)
	}
	// A consumer that stops early stops the read, with no error.
	n := 0
	for _, err := range StreamMem0(strings.NewReader(doc)) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		break
	}
	if n != 1 {
		t.Errorf("%d memories after a break", n)
	}
}
