package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/demo"
	"github.com/tenurehq/tenure/internal/pgtest"
)

// writeFile writes content to a file in a test's temporary folder.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func countRows(t *testing.T, url, query string) int {
	t.Helper()
	var n int
	if err := pgtest.Connect(t, url).QueryRow(context.Background(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestExportImportRoundTrip exports the demo database, imports the file into
// a fresh database and exports that: the two exports are the same bytes.
func TestExportImportRoundTrip(t *testing.T) {
	src := pgtest.NewURL(t)
	if _, err := demo.Load(context.Background(), pgtest.Connect(t, src), time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	// The demo's facts are dated; those its clock has since forgotten are
	// archived first, as the server's decay job would have, so that the
	// export holds them archived (an import writes a fact past its forget
	// date archived, and would differ from an export that had not caught
	// up).
	if _, stderr, err := runCmd(t, map[string]string{"DATABASE_URL": src}, "", "decay"); err != nil {
		t.Fatalf("decay: %v (%s)", err, stderr)
	}
	first, stderr, err := runCmd(t, map[string]string{"DATABASE_URL": src}, "", "export")
	if err != nil {
		t.Fatalf("export: %v (%s)", err, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(first, "\n"), "\n")
	facts := countRows(t, src, `SELECT count(*) FROM entity_facts`)
	if len(lines) != facts || facts < 50 {
		t.Fatalf("export wrote %d lines for %d facts", len(lines), facts)
	}
	if !strings.Contains(stderr, "exported") {
		t.Errorf("export stderr = %q, want the count", stderr)
	}
	var decisions, archived int
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("export line %q is not JSON: %v", l, err)
		}
		if _, ok := m["id"]; ok {
			t.Fatalf("export line carries an id: %s", l)
		}
		if m["decision"] != nil {
			decisions++
		}
		if m["status"] == "archived" {
			archived++
		}
	}
	if decisions == 0 || decisions != countRows(t, src, `SELECT count(*) FROM decisions`) || archived == 0 {
		t.Errorf("export holds %d decisions and %d archived facts, want every decision and the archived facts", decisions, archived)
	}

	dst := pgtest.NewURL(t)
	file := writeFile(t, "facts.jsonl", first)
	out, stderr, err := runCmd(t, map[string]string{"DATABASE_URL": dst}, "", "import", file)
	if err != nil {
		t.Fatalf("import: %v (%s)", err, stderr)
	}
	if !strings.Contains(out, "Imported "+strconv.Itoa(len(lines))+" lines: "+strconv.Itoa(len(lines))+" facts") ||
		!strings.Contains(out, "durability+category") {
		t.Errorf("import report = %q", out)
	}
	second, _, err := runCmd(t, map[string]string{"DATABASE_URL": dst}, "", "export")
	if err != nil {
		t.Fatal(err)
	}
	if first != second {
		a, b := strings.Split(first, "\n"), strings.Split(second, "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("the second export differs at line %d:\n first: %s\nsecond: %s", i+1, a[i], b[i])
			}
		}
		t.Fatalf("the second export has %d lines, the first %d", len(b), len(a))
	}
	// forget_at is the database's to compute, and agrees.
	if n := countRows(t, dst, `SELECT count(*) FROM entity_facts WHERE forget_at IS DISTINCT FROM
		tenure_forget_at(durability, category, confidence, confirmed_at, expires_at, deadline)`); n != 0 {
		t.Errorf("%d imported facts have a stale forget_at", n)
	}
	if n := countRows(t, dst, `SELECT count(*) FROM audit_log WHERE action = 'fact.import' AND actor = 'system:import'`); n != 1 {
		t.Errorf("%d import audit rows, want 1", n)
	}

	// Importing the file again writes nothing twice.
	out, _, err = runCmd(t, map[string]string{"DATABASE_URL": dst}, "", "import", "--json", file)
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Facts          int `json:"facts"`
		AlreadyPresent int `json:"already_present"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("import --json = %q: %v", out, err)
	}
	if report.Facts != 0 || report.AlreadyPresent != len(lines) || countRows(t, dst, `SELECT count(*) FROM entity_facts`) != facts {
		t.Errorf("second import = %+v, want every line already present and nothing written", report)
	}

	// --scope exports one scope only.
	scoped, _, err := runCmd(t, map[string]string{"DATABASE_URL": src}, "", "export", "--scope", "acme-support")
	if err != nil {
		t.Fatal(err)
	}
	n := strings.Count(scoped, "\n")
	if n == 0 || n != countRows(t, src, `SELECT count(*) FROM entity_facts WHERE scope = 'acme-support'`) || strings.Count(scoped, `"scope":"acme-support"`) != n {
		t.Errorf("export --scope acme wrote %d lines, want only and all of acme-support's facts", n)
	}
}

func TestImportLegacyAndReport(t *testing.T) {
	url := pgtest.NewURL(t)
	file := writeFile(t, "legacy.jsonl", strings.Join([]string{
		`{"scope": "home", "entity": "Ann", "content": "Ann was born in Lisbon.", "data_type": "permanent"}`,
		`{"scope": "home", "entity": "Ann", "content": "Ann is a nurse.", "data_type": "identity", "id": 17}`,
		`{"scope": "home", "entity": "Ann", "content": "Ann prefers tea.", "data_type": "preference"}`,
		``,
		`{"scope": "home", "entity": "Ann", "content": "Ann lives in Porto.", "data_type": "observation"}`,
		`{"scope": "home", "entity": "Ann", "content": "Ann is on call this week.", "data_type": "temporal"}`,
		`{"scope": "home", "entity": "Ann", "entity_kind": "person", "key": "mood", "content": "Ann is tired.", "durability": "ephemeral", "category": "mood"}`,
	}, "\n")+"\n")
	env := map[string]string{"DATABASE_URL": url}

	content, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, env, string(content), "import", "-", "--dry-run")
	if err != nil || !strings.Contains(out, "would import 6 lines") {
		t.Fatalf("import - --dry-run (standard input) = %q, %v", out, err)
	}
	out, _, err = runCmd(t, env, "", "import", file, "--dry-run")
	if err != nil {
		t.Fatalf("import --dry-run: %v", err)
	}
	if !strings.Contains(out, "Dry run, nothing written: would import 6 lines: 6 facts") {
		t.Errorf("dry run report = %q", out)
	}
	if n := countRows(t, url, `SELECT count(*) FROM entity_facts`) + countRows(t, url, `SELECT count(*) FROM entities`) +
		countRows(t, url, `SELECT count(*) FROM audit_log WHERE action = 'fact.import'`); n != 0 {
		t.Fatalf("a dry run wrote %d rows", n)
	}

	out, _, err = runCmd(t, env, "", "import", "--json", file)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	var report struct {
		Lines, Facts, Decisions int
		EntitiesCreated         int            `json:"entities_created"`
		ByMapping               map[string]int `json:"by_mapping"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("import --json = %q: %v", out, err)
	}
	want := map[string]int{"data_type:permanent": 1, "data_type:identity": 1, "data_type:preference": 1,
		"data_type:observation": 1, "data_type:temporal": 1, "durability+category": 1}
	if report.Lines != 6 || report.Facts != 6 || report.EntitiesCreated != 1 || len(report.ByMapping) != len(want) {
		t.Errorf("report = %+v", report)
	}
	for k, v := range want {
		if report.ByMapping[k] != v {
			t.Errorf("by_mapping[%s] = %d, want %d", k, report.ByMapping[k], v)
		}
	}
	if n := countRows(t, url, `SELECT count(*) FROM entity_facts f JOIN entities e ON e.id = f.entity_id WHERE e.kind = 'person' AND f.source = 'import'
		AND (f.content, f.durability, f.category) IN (('Ann was born in Lisbon.', 'permanent', 'identity'), ('Ann is a nurse.', 'permanent', 'identity'),
		('Ann prefers tea.', 'long_term', 'preference'), ('Ann lives in Porto.', 'long_term', 'observation'),
		('Ann is on call this week.', 'short_term', 'state'), ('Ann is tired.', 'ephemeral', 'mood'))`); n != 6 {
		t.Errorf("%d facts with their mapped axes, want 6", n)
	}
}

func TestImportRefusesBadLines(t *testing.T) {
	url := pgtest.NewURL(t)
	file := writeFile(t, "bad.jsonl", strings.Join([]string{
		`{"scope": "home", "entity": "Ann", "content": "Ann lives in Porto.", "data_type": "observation"}`,
		`{"scope": "home", "entity": "Ann", "content": "Ann is moody.", "data_type": "episodic"}`,
		`{"scope": "home", "entity": "Ann", "content": "Ann likes tea.", "durability": "long_term", "category": "preference"}`,
		`{"scope": "home", "entity": "Ann", "content": "unterminated`,
		`{"scope": "home", "entity": "", "content": "   ", "durability": "forever", "category": "state"}`,
	}, "\n"))
	_, _, err := runCmd(t, map[string]string{"DATABASE_URL": url}, "", "import", file)
	if err == nil {
		t.Fatal("import of a file with bad lines succeeded")
	}
	msg := err.Error()
	for _, want := range []string{"3 lines are invalid", "line 2: data_type: unknown data_type \"episodic\"",
		"line 4: not valid JSON", "line 5: entity: entity is required", "line 5: content: content is required",
		"line 5: durability: unknown durability \"forever\""} {
		if !strings.Contains(msg, want) {
			t.Errorf("error = %q\nwant it to contain %q", msg, want)
		}
	}
	if strings.Contains(msg, "line 1:") || strings.Contains(msg, "line 3:") {
		t.Errorf("error %q names good lines", msg)
	}
	if exitCode(err) != 1 {
		t.Errorf("exit status %d, want 1", exitCode(err))
	}
	if n := countRows(t, url, `SELECT count(*) FROM entity_facts`) + countRows(t, url, `SELECT count(*) FROM entities`); n != 0 {
		t.Errorf("a refused file wrote %d rows", n)
	}

	out, _, err := runCmd(t, map[string]string{"DATABASE_URL": url}, "", "import", "--json", file)
	var refused struct {
		Lines []struct{ Line int } `json:"lines"`
	}
	if err == nil || json.Unmarshal([]byte(out), &refused) != nil || len(refused.Lines) != 5 {
		t.Errorf("import --json of a bad file = %q, %v; want the 5 problems of 3 lines as JSON", out, err)
	}
}

func TestTransferUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"import"}, "name the file to import"},
		{[]string{"import", "a.jsonl", "b.jsonl"}, "unexpected arguments: b.jsonl"},
		{[]string{"import", "a.jsonl", "--frobnicate"}, "flag provided but not defined"},
		{[]string{"export", "--scope", "Not A Scope"}, "invalid scope"},
		{[]string{"export", "extra"}, "unexpected arguments: extra"},
	}
	for _, tt := range tests {
		_, _, err := runCmd(t, nil, "", tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || exitCode(err) != 2 {
			t.Errorf("run(%q) = %v (exit %d), want a usage error containing %q", tt.args, err, exitCode(err), tt.want)
		}
	}
	_, _, err := runCmd(t, map[string]string{"DATABASE_URL": "postgres://127.0.0.1:1/none"}, "", "import", "/does/not/exist.jsonl")
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("import of a missing file = %v", err)
	}
}

func TestServeLLMConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"url without model", nil, []string{"serve", "--llm-url", "http://localhost:11434/v1"}, "without a model"},
		{"model without url", map[string]string{"TENURE_LLM_MODEL": "llama3.1"}, []string{"serve"}, "without an LLM URL"},
		{"key without url", map[string]string{"TENURE_LLM_KEY": "sk-secret"}, []string{"serve"}, "without an LLM URL"},
		{"bad scheme", map[string]string{"TENURE_LLM_URL": "localhost:11434", "TENURE_LLM_MODEL": "m"}, []string{"serve"}, "use an http or https URL"},
		{"bad timeout", nil, []string{"serve", "--llm-timeout", "10m"}, "invalid llm-timeout"},
		{"bad timeout env", map[string]string{"TENURE_LLM_TIMEOUT": "soon"}, []string{"serve"}, "invalid llm-timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCmd(t, tt.env, "", tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) || exitCode(err) != 2 {
				t.Fatalf("run(%q) = %v, want a usage error containing %q", tt.args, err, tt.want)
			}
			if strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("the error shows the key: %v", err)
			}
		})
	}
	_, stderr, _ := runCmd(t, map[string]string{"TENURE_LLM_KEY": "sk-secret"}, "", "serve", "-h")
	if !strings.Contains(stderr, "-llm-key") || strings.Contains(stderr, "sk-secret") {
		t.Errorf("serve -h = %q, want the flag documented and the key not shown", stderr)
	}
}

// TestServeShowsLLMSettings runs serve with an LLM configured through the
// environment: the settings page shows the endpoint and model, never the key.
func TestServeShowsLLMSettings(t *testing.T) {
	env := map[string]string{"DATABASE_URL": pgtest.NewEmptyURL(t), "TENURE_LLM_URL": "http://127.0.0.1:9/v1",
		"TENURE_LLM_MODEL": "llama3.1", "TENURE_LLM_KEY": "sk-never-shown"}
	url, out, _ := startServe(t, env, "--demo", "--no-jobs", "--llm-timeout", "20s")
	code, body := getWith(t, signIn(t, url, out.String()), url+"/settings")
	if code != 200 || !strings.Contains(body, "llama3.1") || !strings.Contains(body, "http://127.0.0.1:9/v1") ||
		!strings.Contains(body, "20s") || strings.Contains(body, "sk-never-shown") {
		t.Errorf("GET /settings = %d, want the LLM endpoint, model and timeout, and never the key", code)
	}
	if strings.Contains(out.String(), "sk-never-shown") {
		t.Errorf("serve printed the key")
	}
}

// TestImportIntoAnEmptyStoreRebuildsIndexes imports 50,000 facts (the
// fewest that take the bulk path) into an empty store: the report says the
// facts table's indexes were built again, every fact is there, and every
// index the table had before the import is there after it, valid.
func TestImportIntoAnEmptyStoreRebuildsIndexes(t *testing.T) {
	url := pgtest.NewURL(t)
	env := map[string]string{"DATABASE_URL": url}
	indexes := `SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
		WHERE c.relname = 'entity_facts' AND i.indisvalid AND i.indisready`
	before := countRows(t, url, indexes)
	var b strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&b, `{"scope": "bulk", "entity": "e%d", "key": "k%d", "content": "Fact number %d.", "durability": "long_term", "category": "observation"}`+"\n",
			i%100, i, i)
	}
	out, _, err := runCmd(t, env, b.String(), "import", "-")
	if err != nil {
		t.Fatalf("import of 50,000 lines: %v\n%s", err, out)
	}
	for _, want := range []string{"Imported 50000 lines: 50000 facts", "its indexes were built again after the write"} {
		if !strings.Contains(out, want) {
			t.Errorf("import report lacks %q:\n%s", want, out)
		}
	}
	if n := countRows(t, url, `SELECT count(*) FROM entity_facts WHERE scope = 'bulk'`); n != 50000 {
		t.Errorf("%d facts imported, want 50000", n)
	}
	if after := countRows(t, url, indexes); after != before || before < 10 {
		t.Errorf("entity_facts has %d valid indexes after the import, %d before", after, before)
	}
}

// TestImportMem0ChecksFileFirst: a Mem0 file is checked whole before a
// database is opened (with none reachable, the file's fault is what is
// told), and its rows are counted for the push's progress; from standard
// input, read once as it is pushed, a bad memory after good ones leaves
// nothing written.
func TestImportMem0ChecksFileFirst(t *testing.T) {
	bad := writeFile(t, "bad.json", `{"results": [{"id": "m1", "memory": "Likes tea", "user_id": "alex"}, {"id": "m2", "memory": 7}]}`)
	nowhere := map[string]string{"DATABASE_URL": "postgres://tenure@127.0.0.1:1/none?connect_timeout=2"}
	_, _, err := runCmd(t, nowhere, "", "import", "--from", "mem0", "--scope", "acme", bad)
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "results[1]: memory must be the memory's text, not a number") {
		t.Errorf("import of a bad file with no database = %v, want the file refused first", err)
	}

	url := pgtest.NewURL(t)
	env := map[string]string{"DATABASE_URL": url}
	var doc strings.Builder
	doc.WriteString(`[`)
	for i := range 1500 {
		fmt.Fprintf(&doc, `{"id": "m%d", "memory": "Likes tea number %d", "user_id": "alex"},`, i, i)
	}
	good := doc.String()[:doc.Len()-1] + `]`
	_, stderr, err := runCmd(t, env, "", "import", "--from", "mem0", "--scope", "acme", "--json", writeFile(t, "good.json", good))
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	var last struct {
		Phase          string
		Done, Memories int
		Total          *int
		Unit           string
	}
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if err := json.Unmarshal([]byte(line), &last); err != nil {
			t.Fatalf("progress line %q: %v", line, err)
		}
		if len(phases) == 0 || phases[len(phases)-1] != last.Phase {
			phases = append(phases, last.Phase)
		}
	}
	if strings.Join(phases, " ") != "read push" || last.Done != 1500 || last.Total == nil || *last.Total != 1500 ||
		last.Unit != "rows" || last.Memories != 1500 {
		t.Errorf("progress = %q, want the read, then the push of 1,500 of 1,500 rows", stderr)
	}

	doc.WriteString(`{"id": "m-last", "memory": ""}]`)
	_, _, err = runCmd(t, env, doc.String(), "import", "--from", "mem0", "--scope", "other", "-")
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "[1500] (Mem0 id m-last): the memory has no text") ||
		!strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("import of a bad standard input = %v", err)
	}
	if n := countRows(t, url, `SELECT count(*) FROM memory_nodes WHERE scope = 'other'`); n != 0 {
		t.Errorf("a refused standard input wrote %d rows (its first batch was pushed before the bad memory was read)", n)
	}
}
