package reliability

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// binDir holds the tenure binary the tests build once; set by TestMain.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tenure-reliability-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, "reliability:", err)
		os.Exit(1)
	}
	binDir = dir
	code := pgtest.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	buildOnce sync.Once
	buildErr  error
)

// tenureBinary builds cmd/tenure once per test binary and returns its path.
func tenureBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(binDir, "tenure")
	buildOnce.Do(func() {
		goCmd, err := exec.LookPath("go")
		if err != nil {
			buildErr = fmt.Errorf("the go command is needed to build tenure: %w", err)
			return
		}
		start := time.Now()
		cmd := exec.Command(goCmd, "build", "-o", bin, "github.com/tenurehq/tenure/cmd/tenure")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %w\n%s", err, out)
			return
		}
		t.Logf("built tenure in %v", time.Since(start).Round(time.Millisecond))
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return bin
}

// tenureEnv is the environment of a tenure process: this one's, without
// Tenure's own settings, and with DATABASE_URL.
func tenureEnv(databaseURL string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TENURE_") || strings.HasPrefix(kv, "DATABASE_URL=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "DATABASE_URL="+databaseURL)
}

var printedToken = regexp.MustCompile(`(?m)^\s+(tnr_\S+)$`)

// createToken runs "tenure token create" and returns the printed token.
func createToken(t *testing.T, databaseURL, scope, name string) string {
	t.Helper()
	cmd := exec.Command(tenureBinary(t), "token", "create", "--scope", scope, "--name", name)
	cmd.Env = tenureEnv(databaseURL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tenure token create: %v\n%s", err, out)
	}
	m := printedToken.FindSubmatch(out)
	if m == nil {
		t.Fatalf("tenure token create printed no token:\n%s", out)
	}
	return string(m[1])
}

// logRecord is one JSON log line of a tenure process.
type logRecord struct {
	Time  time.Time
	Msg   string
	Attrs map[string]any
}

// jobRun is one finished scheduled run, read from the job.* log records.
type jobRun struct {
	Proc  string
	Job   string
	Start time.Time
	Took  time.Duration
	Err   string
}

// tenure is a "tenure serve" process.
type tenure struct {
	name string
	cmd  *exec.Cmd
	url  string
	done chan struct{} // closed when the process has exited

	mu      sync.Mutex
	records []logRecord
	raw     strings.Builder // everything it wrote, for failure messages
}

var servingLine = regexp.MustCompile(`serving at (http://[0-9.:]+)`)

// startTenure runs "tenure serve" on databaseURL, with JSON logs at debug
// level and the extra args, and waits until it listens. The process is
// stopped when the test ends.
func startTenure(t *testing.T, name, databaseURL string, args ...string) *tenure {
	t.Helper()
	cmd := exec.Command(tenureBinary(t), append([]string{"serve", "--addr", "127.0.0.1:0",
		"--log-format", "json", "--log-level", "debug"}, args...)...)
	cmd.Env = tenureEnv(databaseURL)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &tenure{name: name, cmd: cmd, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start tenure %s: %v", name, err)
	}
	urlc := make(chan string, 1)
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.addRaw("stdout: " + sc.Text())
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urlc <- m[1]:
				default:
				}
			}
		}
	}()
	go func() {
		defer readers.Done()
		p.readLogs(stderr)
	}()
	go func() {
		readers.Wait() // Wait must not run before the pipes are read to the end
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() { p.stop(t) })
	select {
	case p.url = <-urlc:
	case <-p.done:
		t.Fatalf("tenure %s exited before listening: %v\n%s", name, cmd.ProcessState, p.output())
	case <-time.After(60 * time.Second):
		t.Fatalf("tenure %s did not listen within 60 s\n%s", name, p.output())
	}
	return p
}

func (p *tenure) readLogs(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		p.addRaw(line)
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		rec := logRecord{Attrs: m}
		rec.Msg, _ = m["msg"].(string)
		if s, ok := m["time"].(string); ok {
			rec.Time, _ = time.Parse(time.RFC3339Nano, s)
		}
		p.mu.Lock()
		p.records = append(p.records, rec)
		p.mu.Unlock()
	}
}

func (p *tenure) addRaw(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.raw.WriteString(line)
	p.raw.WriteByte('\n')
}

// output is everything the process wrote, for failure messages.
func (p *tenure) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.raw.String()
}

// logs returns the records logged so far with message msg.
func (p *tenure) logs(msg string) []logRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []logRecord
	for _, r := range p.records {
		if r.Msg == msg {
			out = append(out, r)
		}
	}
	return out
}

// runs returns the scheduled runs the process finished so far, in the order
// they finished. A run's start is its log record's time less its duration.
func (p *tenure) runs() []jobRun {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []jobRun
	for _, r := range p.records {
		switch r.Msg {
		case "job.done", "job.failed", "job.panic", "job.cancelled":
		default:
			continue
		}
		job, _ := r.Attrs["job"].(string)
		ns, _ := r.Attrs["duration"].(float64) // slog's JSON writes a Duration as nanoseconds
		took := time.Duration(ns)
		run := jobRun{Proc: p.name, Job: job, Start: r.Time.Add(-took), Took: took}
		if r.Msg != "job.done" {
			run.Err, _ = r.Attrs["err"].(string)
			if run.Err == "" {
				run.Err = r.Msg
			}
		}
		out = append(out, run)
	}
	return out
}

// exited reports whether the process has exited.
func (p *tenure) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill ends the process with SIGKILL, which it cannot catch: no deferred
// cleanup runs, and only the kernel closes its connections.
func (p *tenure) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill tenure %s: %v", p.name, err)
	}
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("tenure %s still running 10 s after SIGKILL", p.name)
	}
}

// stop ends the process with SIGTERM, as a service manager does, and kills
// it if it has not exited within 30 s.
func (p *tenure) stop(t *testing.T) {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Errorf("tenure %s did not stop within 30 s of SIGTERM", p.name)
	}
}

// waitFor polls cond every 20 ms until it holds or timeout passes, and
// reports whether it held.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// response is an HTTP answer, or the error of a request that got none.
type response struct {
	Status int
	Body   string
	Took   time.Duration
	Err    error
}

// client bounds every request: a server that hangs fails the test instead of
// holding it up.
var client = &http.Client{Timeout: 15 * time.Second}

// do sends a request with an optional bearer token and JSON body.
func do(method, url, token, body string) response {
	ctx := context.Background()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return response{Err: err}
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return response{Err: err, Took: time.Since(start)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{Status: resp.StatusCode, Body: string(b), Took: time.Since(start), Err: err}
}

func (r response) String() string {
	if r.Err != nil {
		return fmt.Sprintf("error %v after %v", r.Err, r.Took.Round(time.Millisecond))
	}
	return fmt.Sprintf("%d %s (in %v)", r.Status, strings.TrimSpace(r.Body), r.Took.Round(time.Millisecond))
}
