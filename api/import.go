package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"reflect"
	"runtime"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/memory"
)

// maxImportBody bounds an import file sent to the API; larger files go
// through tenure import.
const maxImportBody = 32 << 20 // 32 MiB

// importLine is one line of an import file: the export's fields, or a
// legacy row's data_type instead of durability and category. An id is
// allowed and ignored: the importing database gives new ones.
type importLine struct {
	memory.TransferFact
	DataType *string         `json:"data_type"`
	ID       json.RawMessage `json:"id"`
}

var importLineType = reflect.TypeFor[importLine]()

// ParseImport reads an import file, JSON Lines as tenure export writes them
// (legacy rows may give data_type instead of durability and category, mapped
// by MapDataType), into one memory.ImportLine per line that is not blank. A
// line that cannot be read carries its error, naming the field at fault;
// memory.Store.Import refuses the whole file if any line is bad. Only a
// failure to read r is returned as an error.
func ParseImport(r io.Reader) ([]memory.ImportLine, error) {
	var out []memory.ImportLine
	for l, err := range ReadImport(r) {
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// ReadImport reads an import file as ParseImport does, in the order of
// the file: it yields each line that is not blank, then a failure to read
// r as its error, after which it stops. Lines are parsed by one worker per
// CPU a chunk at a time while the next chunks are read, and no more than a
// few chunks are held in memory at once, whatever the size of the file. It
// is what memory.Store.ImportStream consumes.
func ReadImport(r io.Reader) iter.Seq2[memory.ImportLine, error] {
	return func(yield func(memory.ImportLine, error) bool) {
		workers := max(1, runtime.GOMAXPROCS(0))
		stop := make(chan struct{})
		defer close(stop)
		order := make(chan *importChunk, 2*workers) // chunks in the order of the file
		work := make(chan *importChunk, 2*workers)
		go readChunks(r, order, work, stop)
		for range workers {
			go func() {
				for c := range work {
					c.parse()
				}
			}()
		}
		for c := range order {
			<-c.done
			for _, l := range c.lines {
				if !yield(l, nil) {
					return
				}
			}
			if c.err != nil {
				yield(memory.ImportLine{}, c.err)
				return
			}
		}
	}
}

// importChunkLines is how many lines one chunk of ReadImport holds.
const importChunkLines = 512

// importChunk is a run of lines of an import file: their text as read, then
// as parsed.
type importChunk struct {
	numbers []int
	raws    [][]byte
	lines   []memory.ImportLine
	err     error // the read error after the chunk's lines
	done    chan struct{}
}

func (c *importChunk) parse() {
	c.lines = make([]memory.ImportLine, len(c.raws))
	for i, raw := range c.raws {
		c.lines[i] = parseImportLine(c.numbers[i], raw)
	}
	c.raws = nil
	close(c.done)
}

// readChunks reads r line by line into chunks, handing each to order (for
// the consumer) and work (for the parsers), until the end of r, a read
// error (carried by the last chunk) or stop.
func readChunks(r io.Reader, order, work chan<- *importChunk, stop <-chan struct{}) {
	defer close(order)
	defer close(work)
	br := bufio.NewReaderSize(r, 64<<10)
	c := &importChunk{done: make(chan struct{})}
	send := func() bool {
		select {
		case order <- c:
		case <-stop:
			return false
		}
		select {
		case work <- c:
		case <-stop:
			return false
		}
		c = &importChunk{done: make(chan struct{})}
		return true
	}
	for n := 1; ; n++ {
		raw, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it whole.
			long := append([]byte(nil), raw...)
			for errors.Is(err, bufio.ErrBufferFull) {
				raw, err = br.ReadSlice('\n')
				long = append(long, raw...)
			}
			raw = long
		}
		if line := bytes.TrimSpace(raw); len(line) > 0 && (err == nil || err == io.EOF) {
			c.numbers = append(c.numbers, n)
			c.raws = append(c.raws, bytes.Clone(line))
		}
		if err != nil {
			if err != io.EOF {
				c.err = err
			}
			send()
			return
		}
		if len(c.raws) == importChunkLines && !send() {
			return
		}
	}
}

// parseImportLine reads one non-blank line.
func parseImportLine(n int, raw []byte) memory.ImportLine {
	l := memory.ImportLine{Line: n, Mapping: memory.MappingAxes}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			l.Err = memory.Invalidf("", "not valid JSON: %s at byte %d", se.Error(), max(se.Offset-1, 0))
		case errors.Is(err, io.ErrUnexpectedEOF):
			l.Err = memory.Invalidf("", "not valid JSON: the line ends before the object is complete")
		default:
			l.Err = memory.Invalidf("", "not valid JSON: %v", err)
		}
		return l
	}
	if _, err := dec.Token(); err != io.EOF {
		l.Err = memory.Invalidf("", "the line holds more than one JSON value: put one fact per line")
		return l
	}
	if _, ok := v.(map[string]any); !ok {
		l.Err = memory.Invalidf("", "a line must be a JSON object (one fact), not %s", describe(v))
		return l
	}
	if err := memory.CheckNumbers(v); err != nil {
		l.Err = err
		return l
	}
	if err := checkShape(v, importLineType, ""); err != nil {
		l.Err = err
		return l
	}
	var line importLine
	strict := json.NewDecoder(bytes.NewReader(raw))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&line); err != nil {
		l.Err = memory.Invalidf("", "the line does not fit the import format: %v", err)
		return l
	}
	// The text of the line, as the store would keep it: UTF-8 (decoding
	// would have turned other bytes into U+FFFD), without NUL or control
	// characters.
	if err := memory.CheckDocument(raw); err != nil {
		l.Err = err
		return l
	}
	if err := memory.CheckFields(&line); err != nil {
		l.Err = err
		return l
	}
	l.Fact = line.TransferFact
	if line.DataType != nil {
		if l.Fact.Durability != "" || l.Fact.Category != "" {
			l.Err = memory.Invalidf("data_type", "data_type is the legacy form of durability and category together: give either data_type or durability and category, not both")
			return l
		}
		d, category, err := MapDataType(*line.DataType)
		if err != nil {
			l.Err = err
			return l
		}
		l.Fact.Durability, l.Fact.Category = string(d), category
		l.Mapping = "data_type:" + *line.DataType
	}
	return l
}

// importCreate imports a JSON Lines file of facts into the token's scope,
// all in one transaction, or none of it: a file with any bad line, or with
// a line of another scope, is refused with 400 naming every bad line.
// ?dry_run=true validates and reports without writing.
func (h *handlers) importCreate(c echo.Context) error {
	q, err := newQuery(c, "dry_run")
	if err != nil {
		return err
	}
	dryRun, err := q.boolean("dry_run")
	if err != nil {
		return err
	}
	body, err := readBody(c, maxImportBody)
	if err != nil {
		return err
	}
	lines, err := ParseImport(bytes.NewReader(body))
	if err != nil {
		return memory.Invalidf("", "the request body could not be read: %v", err)
	}
	opts := memory.ImportOptions{DryRun: dryRun != nil && *dryRun, Scope: callerToken(c).Scope}
	report, err := h.store.Import(c.Request().Context(), actor(c), lines, opts)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if opts.DryRun || report.Facts == 0 {
		status = http.StatusOK
	}
	return c.JSON(status, report)
}
