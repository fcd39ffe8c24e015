package api_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
)

// postImport sends body as an import file.
func (f *apiFixture) postImport(t *testing.T, query, token, body string) apiResponse {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.srv.URL+"/api/v1/import"+query, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return apiResponse{status: res.StatusCode, header: res.Header, body: raw}
}

type importRefusal struct {
	Error struct {
		Code    string                 `json:"code"`
		Message string                 `json:"message"`
		Lines   []memory.ImportProblem `json:"lines"`
	} `json:"error"`
}

const importFile = `{"scope":"acme","entity":"Ann","entity_kind":"person","key":"lives_in","content":"Ann lives in Berlin.","durability":"long_term","category":"observation","confidence":0.9,"importance":0.4,"confirmed_at":"2026-01-05T10:00:00.123456Z","expires_at":null,"deadline":null,"status":"active","archived_at":null,"archive_reason":null,"source":"api","extraction_count":3,"created_at":"2025-12-01T08:00:00Z","updated_at":"2026-01-05T10:00:00.123456Z"}
{"scope":"acme","entity":"Ann","key":"editor","content":"Ann uses Helix.","durability":"permanent","category":"decision","status":"active","created_at":"2026-01-02T00:00:00Z","decision":{"decision":"Ann uses Helix.","alternatives":["Vim","Emacs"],"reasoning":"Modal editing without configuration.","decided_by":"Ann","decided_at":"2026-01-02T00:00:00Z","do_not_reopen":true}}

{"scope":"acme","entity":"Ann","content":"Ann was born in Lisbon.","data_type":"permanent"}
{"scope":"acme","entity":"Ann","content":"Ann is on call this week.","data_type":"temporal","id":99}
`

func TestImportAPI(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)

	res := f.postImport(t, "?dry_run=true", tok, importFile)
	res.wantStatus(t, http.StatusOK)
	if m := res.object(t); m["dry_run"] != true || m["facts"] != float64(4) {
		t.Errorf("dry run = %s", res.body)
	}
	if n := f.count(t, `SELECT count(*) FROM entity_facts`); n != 0 {
		t.Fatalf("a dry run wrote %d facts", n)
	}

	res = f.postImport(t, "", tok, importFile)
	res.wantStatus(t, http.StatusCreated)
	var report memory.ImportReport
	res.decode(t, &report)
	if report.DryRun || report.Lines != 4 || report.Facts != 4 || report.Decisions != 1 || report.EntitiesCreated != 1 ||
		report.ByMapping["durability+category"] != 2 || report.ByMapping["data_type:permanent"] != 1 || report.ByMapping["data_type:temporal"] != 1 {
		t.Errorf("report = %s", res.body)
	}
	if n := f.count(t, `SELECT count(*) FROM entity_facts f JOIN entities e ON e.id = f.entity_id
		WHERE e.kind = 'person' AND f.key = 'lives_in' AND f.extraction_count = 3 AND f.source = 'api'
		AND f.confirmed_at = '2026-01-05T10:00:00.123456Z' AND f.created_at = '2025-12-01T08:00:00Z'`); n != 1 {
		t.Errorf("the exported fact was not restored exactly")
	}
	if n := f.count(t, `SELECT count(*) FROM decisions WHERE key = 'editor' AND alternatives = '{Vim,Emacs}' AND do_not_reopen`); n != 1 {
		t.Errorf("the decision was not restored")
	}
	if n := f.count(t, `SELECT count(*) FROM entity_facts WHERE source = 'import' AND (content, durability, category) IN
		(('Ann was born in Lisbon.', 'permanent', 'identity'), ('Ann is on call this week.', 'short_term', 'state'))`); n != 2 {
		t.Errorf("legacy rows mapped = %d, want 2", n)
	}
	if n := f.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.import' AND actor = 'token:agent' AND scope = 'acme'`); n != 1 {
		t.Errorf("import audit rows = %d, want 1", n)
	}

	// The imported decision locks its key against the token.
	res = f.call(t, http.MethodPost, "/api/v1/scopes/acme/facts", tok,
		map[string]any{"entity": "Ann", "key": "editor", "content": "Ann uses VS Code."})
	res.wantError(t, http.StatusConflict, "decision_locked")

	// Sending the file again writes nothing twice.
	res = f.postImport(t, "", tok, importFile)
	res.wantStatus(t, http.StatusOK)
	if m := res.object(t); m["already_present"] != float64(4) || m["facts"] != float64(0) {
		t.Errorf("second import = %s, want every line already present", res.body)
	}
	// Legacy rows carry no created_at: stamped with the time of the import,
	// they are new facts when imported again later; exported ones are not.
	f.clock.advance(time.Hour)
	res = f.postImport(t, "", tok, importFile)
	res.wantStatus(t, http.StatusCreated)
	if m := res.object(t); m["already_present"] != float64(2) || m["facts"] != float64(2) {
		t.Errorf("import an hour later = %s, want the exported lines present and the legacy ones new", res.body)
	}
}

func TestImportAPIRefusesBadLinesAndOtherScopes(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	file := strings.Join([]string{
		`{"scope":"acme","entity":"Ann","content":"Ann likes tea.","data_type":"preference"}`,
		`{"scope":"home","entity":"Bob","content":"Bob likes coffee.","data_type":"preference"}`,
		`{"scope":"acme","entity":"Ann","content":"Ann is moody.","data_type":"mood"}`,
		`not json`,
		`{"scope":"other","entity":"Cy","content":"Cy likes juice.","durability":"long_term","category":"preference"}`,
	}, "\n")
	res := f.postImport(t, "", tok, file)
	if res.status != http.StatusBadRequest {
		t.Fatalf("status = %d, want 400; body %s", res.status, res.body)
	}
	var got importRefusal
	res.decode(t, &got)
	lines := map[int]string{}
	for _, p := range got.Error.Lines {
		lines[p.Line] = p.Field + ": " + p.Message
	}
	want := map[int]string{
		2: "scope: this token may only import facts of scope acme, not home",
		3: `data_type: unknown data_type "mood"`,
		4: "not valid JSON",
		5: "scope: this token may only import facts of scope acme, not other",
	}
	if got.Error.Code != "invalid" || !strings.Contains(got.Error.Message, "4 lines are invalid") || len(lines) != len(want) {
		t.Errorf("refusal = %s", res.body)
	}
	for line, msg := range want {
		if !strings.Contains(lines[line], msg) {
			t.Errorf("line %d = %q, want %q", line, lines[line], msg)
		}
	}
	if n := f.count(t, `SELECT count(*) FROM entity_facts`) + f.count(t, `SELECT count(*) FROM entities`); n != 0 {
		t.Errorf("a refused file wrote %d rows", n)
	}
}

func TestImportAPIRefusals(t *testing.T) {
	f := newAPIFixture(t)
	tok := f.newToken(t, "acme", "agent", auth.TokenWriter)
	reader := f.newToken(t, "acme", "watcher", auth.TokenReader)
	line := `{"scope":"acme","entity":"Ann","content":"Ann likes tea.","data_type":"preference"}`
	f.postImport(t, "", reader, line).wantError(t, http.StatusForbidden, "forbidden")
	e := f.postImport(t, "?dry_run=maybe", tok, line).wantError(t, http.StatusBadRequest, "invalid")
	if e.Error.Field != "dry_run" {
		t.Errorf("bad dry_run error = %+v", e.Error)
	}
	f.postImport(t, "?dryrun=true", tok, line).wantError(t, http.StatusBadRequest, "invalid")
	if e := f.postImport(t, "", tok, "\n\n").wantError(t, http.StatusBadRequest, "invalid"); !strings.Contains(e.Error.Message, "holds no facts") {
		t.Errorf("empty file error = %+v", e.Error)
	}
	if n := f.count(t, `SELECT count(*) FROM entity_facts`); n != 0 {
		t.Errorf("refused imports wrote %d facts", n)
	}
}

func TestParseImport(t *testing.T) {
	lines, err := api.ParseImport(strings.NewReader("\n" + `{"scope":"a","entity":"b","content":"c","data_type":"temporal"}` + "\r\n" +
		`{"scope":"a","entity":"b","content":"c","data_type":"temporal","durability":"ephemeral"}` + "\n" +
		`{"scope":"a","entity":"b","content":"c","confidence":"high"}` + "\n" +
		`{"scope":"a"} {"scope":"b"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 4 {
		t.Fatalf("ParseImport = %d lines, want 4 (blank lines skipped)", len(lines))
	}
	if l := lines[0]; l.Line != 2 || l.Err != nil || l.Mapping != "data_type:temporal" || l.Fact.Durability != "short_term" || l.Fact.Category != "state" {
		t.Errorf("line 2 = %+v", l)
	}
	for i, want := range []string{"not both", "must be a number", "more than one JSON value"} {
		if l := lines[i+1]; l.Err == nil || !strings.Contains(l.Err.Error(), want) {
			t.Errorf("line %d error = %v, want %q", l.Line, l.Err, want)
		}
	}
	if _, err := api.ParseImport(errReader{}); err == nil {
		t.Errorf("ParseImport of a failing reader succeeded")
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrClosedPipe }

// FuzzParseImport feeds the import reader what a file could hold: it never
// panics, and every line it reads without error has both axes.
func FuzzParseImport(f *testing.F) {
	f.Add(importFile)
	f.Add(`{"scope":"a","entity":"b","content":"c","data_type":"x"}`)
	f.Add("[]\n{}\n\"x\"")
	f.Fuzz(func(t *testing.T, file string) {
		lines, err := api.ParseImport(strings.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			if l.Err == nil && l.Mapping != "durability+category" && (l.Fact.Durability == "" || l.Fact.Category == "") {
				t.Fatalf("line %d mapped %s to no axes", l.Line, l.Mapping)
			}
		}
	})
}
