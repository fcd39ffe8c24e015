package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/memory"
)

// The bounds property test sends a real server (API, MCP and console over
// one database) generated extremes of every number and time a writer can
// send: numbers huge, tiny, negative, subnormal, past int32 and int64 and
// past any float, written as JSON in every form (exponents, fractions,
// strings and other types where a number belongs); times in the years 0000,
// 0001, 1969, 1970, 8999, 9000, 9001 and 9999, at the bounds and a
// nanosecond past them, with fractional seconds and time zones from -23:59
// to +14:00, and some that are not times at all. They go through pushes,
// facts (written and edited), decisions, import lines, MCP's remember,
// record_decision and context, the console's fact, decision and policy
// forms, and the reads (recall, the brief, with since at the extremes).
//
// Every answer must be a 2xx (or a console's redirect) or a refusal that
// names its field: a 400 of the API with the field in the error, an MCP tool
// error naming the argument, a console 422 marking the field. None may be a
// 5xx or an ERROR in the log. Then consolidation runs twice: no row that was
// acknowledged may be set aside (every accepted row can be promoted), and
// the scope must still answer every read with 2xx: the facts list and each
// fact, recall, the brief (text and JSON, since at the extremes), MCP's
// recall and context, the console's pages, and an export of every fact that
// encodes as JSON and imports again. BOUNDS_SEED changes the seed.
const (
	boundsSeed  = 20261204
	boundsCases = 700
	boundsScope = "bounds"
)

func TestBoundsProperty(t *testing.T) {
	logs := &lockedBuffer{}
	srv, pool := robustServer(t, logs)
	writer := robustToken(t, pool, boundsScope, "bounds-writer", auth.TokenWriter)
	console := robustConsole(t, srv, "reviewer@example.com")
	admin := robustConsole(t, srv, "admin@example.com")
	seed := uint64(boundsSeed)
	if s := os.Getenv("BOUNDS_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("BOUNDS_SEED=%q: %v", s, err)
		}
		seed = n
	}
	t.Logf("seed %d", seed)
	b := &boundsRun{t: t, base: srv.URL, writer: writer, console: console, admin: admin, pool: pool,
		g: &boundsGen{r: rand.New(rand.NewPCG(seed, 3))}, tally: map[string]*[3]int{}}

	// Facts and a decision for the edit forms to work on.
	for i := range 3 {
		res := b.api("seed fact", http.MethodPost, "/facts", fmt.Sprintf(
			`{"entity": "Ann", "key": "due_%d", "content": "Ann files the report %d", "category": "obligation", "deadline": "2027-01-0%dT09:00:00Z"}`, i, i, i+1))
		var f struct {
			Fact struct {
				ID      int64 `json:"id"`
				Version int32 `json:"version"`
			} `json:"fact"`
		}
		if err := json.Unmarshal(res.body, &f); err != nil || f.Fact.ID == 0 {
			t.Fatalf("seed fact: %d %s", res.status, res.body)
		}
		b.facts = append(b.facts, f.Fact.ID)
	}
	if res := b.api("seed decision", http.MethodPost, "/decisions",
		`{"entity": "Ann", "key": "seed", "decision": "Keep it", "reasoning": "It works."}`); res.status != http.StatusCreated {
		t.Fatalf("seed decision: %d %s", res.status, res.body)
	} else {
		var d struct {
			ID int64 `json:"id"`
		}
		_ = json.Unmarshal(res.body, &d)
		b.decision = d.ID
	}
	if err := pool.QueryRow(context.Background(), `SELECT id FROM decay_policies WHERE durability = 'long_term'`).Scan(&b.policy); err != nil {
		t.Fatal(err)
	}

	probes := []func(int){b.pushProbe, b.factProbe, b.patchProbe, b.decisionProbe, b.importProbe, b.readProbe,
		b.mcpProbe, b.consoleFactProbe, b.consoleDecisionProbe, b.policyProbe}
	weights := []int{30, 12, 10, 8, 8, 6, 14, 6, 4, 2}
	for i := range boundsCases {
		n := b.g.r.IntN(100)
		for j, w := range weights {
			if n < w {
				probes[j](i)
				break
			}
			n -= w
		}
	}

	// Consolidation: every acknowledged row is promoted or refused by a
	// gate, none set aside; twice, so that facts due at once decay.
	for run := range 2 {
		res := b.send(apiClient, http.MethodPost, "/api/v1/consolidation/runs", nil, "", map[string]string{"Authorization": "Bearer " + b.writer})
		var r struct {
			Status   string `json:"status"`
			SetAside int    `json:"set_aside"`
			Error    string `json:"error"`
		}
		if err := json.Unmarshal(res.body, &r); err != nil || res.status != http.StatusCreated {
			t.Fatalf("consolidation run %d: %d %s", run+1, res.status, res.body)
		}
		if r.Status != "succeeded" || r.SetAside != 0 {
			t.Errorf("consolidation run %d: %s with %d rows set aside (%s), want every acknowledged row promoted or refused by a gate",
				run+1, r.Status, r.SetAside, r.Error)
		}
	}
	var faults []string
	rows, err := pool.Query(context.Background(), `SELECT n.content || ' ' || n.properties::text || ': ' || f.error
		FROM consolidation_faults f JOIN memory_nodes n ON n.id = f.node_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		_ = rows.Scan(&s)
		faults = append(faults, s)
	}
	rows.Close()
	for i, f := range faults {
		if i < 10 {
			t.Errorf("set aside: %s", truncate(f, 300))
		}
	}

	b.readsAnswer()
	b.report(logs)
}

// boundsRun is the state of one run: the server, its clients, the ids the
// probes work on, and what was answered.
type boundsRun struct {
	t                *testing.T
	base             string
	writer           string
	console, admin   signedIn
	pool             *pgxpool.Pool
	g                *boundsGen
	facts            []int64
	decision, policy int64
	failures         int
	tally            map[string]*[3]int // kind: sent, accepted, refused
	accepted, mcpOK  int
	decisionKeys     int
}

type boundsAnswer struct {
	status int
	body   []byte
}

func (b *boundsRun) send(client *http.Client, method, path string, body []byte, contentType string, header map[string]string) boundsAnswer {
	b.t.Helper()
	req, err := http.NewRequest(method, b.base+path, bytes.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := client.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(res.Body)
	return boundsAnswer{status: res.StatusCode, body: buf.Bytes()}
}

func (b *boundsRun) fail(kind, format string, args ...any) {
	b.t.Helper()
	b.failures++
	if b.failures <= 30 {
		b.t.Errorf("%s: %s", kind, fmt.Sprintf(format, args...))
	}
}

func (b *boundsRun) count(kind string, accepted bool) {
	c := b.tally[kind]
	if c == nil {
		c = &[3]int{}
		b.tally[kind] = c
	}
	c[0]++
	if accepted {
		c[1]++
	} else {
		c[2]++
	}
}

var apiClient = &http.Client{Timeout: 60 * time.Second}

// api sends a request to the scope's API and checks the answer: a 2xx, or a
// 400 whose error names its field.
func (b *boundsRun) api(kind, method, path, body string) boundsAnswer {
	b.t.Helper()
	ctype := ""
	if body != "" {
		ctype = "application/json"
	}
	res := b.send(apiClient, method, "/api/v1/scopes/"+boundsScope+path, []byte(body), ctype,
		map[string]string{"Authorization": "Bearer " + b.writer})
	b.checkAPI(kind, method+" "+path+" "+truncate(body, 300), res)
	return res
}

func (b *boundsRun) checkAPI(kind, what string, res boundsAnswer) {
	b.t.Helper()
	switch {
	case res.status >= 500:
		b.fail(kind, "%s: status %d: %s", what, res.status, truncate(string(res.body), 300))
	case res.status >= 400:
		var e struct {
			Error *struct {
				Code, Message, Field string
				Lines                []struct{ Line int } `json:"lines"`
			} `json:"error"`
		}
		if err := json.Unmarshal(res.body, &e); err != nil || e.Error == nil || e.Error.Code == "" || e.Error.Message == "" {
			b.fail(kind, "%s: status %d without the error shape: %s", what, res.status, truncate(string(res.body), 300))
		} else if res.status != http.StatusBadRequest || (e.Error.Field == "" && len(e.Error.Lines) == 0) {
			b.fail(kind, "%s: status %d, want a 400 naming the field: %s", what, res.status, truncate(string(res.body), 300))
		}
		b.count(kind, false)
	default:
		b.count(kind, true)
	}
}

func (b *boundsRun) pushRow() string {
	g := b.g
	fields := []string{`"content": ` + g.quote("Ann pays the rent on time "+strconv.Itoa(g.r.IntN(1000)))}
	if g.chance(50) {
		fields = append(fields, `"importance": `+g.unitJSON())
	}
	if g.chance(40) {
		fields = append(fields, `"ttl_seconds": `+g.ttlJSON())
	}
	var props []string
	if g.chance(50) {
		props = append(props, `"confidence": `+g.unitJSON())
	}
	if g.chance(50) {
		props = append(props, `"category": "obligation"`, `"deadline": `+g.timeJSON())
	}
	if g.chance(20) {
		props = append(props, `"key": "k`+strconv.Itoa(g.r.IntN(20))+`"`, `"entity": "Ann"`)
	}
	if len(props) > 0 {
		fields = append(fields, `"properties": {`+strings.Join(props, ", ")+`}`)
	}
	if g.chance(15) {
		fields = append(fields, `"metadata": {"score": `+g.number()+`, "seen": `+g.timeJSON()+`}`)
	}
	if g.chance(10) {
		// A date the classifier reads in the text.
		fields[0] = `"content": ` + g.quote("I must renew the passport by "+g.dateText())
	}
	g.r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	return "{" + strings.Join(fields, ", ") + "}"
}

func (b *boundsRun) pushProbe(int) {
	body := b.pushRow()
	if b.g.chance(30) {
		rows := []string{body}
		for range 1 + b.g.r.IntN(4) {
			rows = append(rows, b.pushRow())
		}
		body = `{"rows": [` + strings.Join(rows, ", ") + `]}`
	}
	b.api("api push", http.MethodPost, "/nodes", body)
}

func (b *boundsRun) factProbe(i int) {
	g := b.g
	fields := []string{`"entity": "Ann"`, `"content": "Ann pays the gas bill ` + strconv.Itoa(i) + `"`}
	if g.chance(60) {
		fields = append(fields, `"confidence": `+g.unitJSON())
	}
	if g.chance(40) {
		fields = append(fields, `"importance": `+g.unitJSON())
	}
	if g.chance(60) {
		fields = append(fields, `"category": "obligation"`, `"deadline": `+g.timeJSON())
	}
	if g.chance(30) {
		fields = append(fields, `"expires_at": `+g.timeJSON())
	}
	b.api("api fact", http.MethodPost, "/facts", "{"+strings.Join(fields, ", ")+"}")
}

func (b *boundsRun) patchProbe(int) {
	g := b.g
	id := b.facts[g.r.IntN(len(b.facts))]
	cur := b.api("api fact read", http.MethodGet, "/facts/"+strconv.FormatInt(id, 10), "")
	var f struct {
		Version int32 `json:"version"`
	}
	if err := json.Unmarshal(cur.body, &f); err != nil {
		b.fail("api fact read", "fact %d: %d %s", id, cur.status, truncate(string(cur.body), 200))
		return
	}
	version := strconv.Itoa(int(f.Version))
	if g.chance(15) {
		version = g.pick("0", "-1", "2147483648", "1e30", "1.5", `"1"`)
	}
	fields := []string{`"version": ` + version}
	if g.chance(50) {
		fields = append(fields, `"confidence": `+g.unitJSON())
	}
	if g.chance(40) {
		fields = append(fields, `"importance": `+g.unitJSON())
	}
	if g.chance(60) {
		fields = append(fields, `"deadline": `+g.pick(g.timeJSON(), "null"))
	}
	if g.chance(30) {
		fields = append(fields, `"expires_at": `+g.pick(g.timeJSON(), "null"))
	}
	b.api("api fact edit", http.MethodPatch, "/facts/"+strconv.FormatInt(id, 10), "{"+strings.Join(fields, ", ")+"}")
}

func (b *boundsRun) decisionProbe(int) {
	b.decisionKeys++
	body := fmt.Sprintf(`{"entity": "Ann", "key": "choice_%d", "decision": "Use option %d", "reasoning": "It was cheaper.", "decided_at": %s}`,
		b.decisionKeys, b.decisionKeys, b.g.timeJSON())
	b.api("api decision", http.MethodPost, "/decisions", body)
}

func (b *boundsRun) importProbe(i int) {
	g := b.g
	var lines []string
	for j := range 1 + g.r.IntN(3) {
		fields := []string{`"scope": "` + boundsScope + `"`, `"entity": "Ann"`, `"durability": "long_term"`,
			fmt.Sprintf(`"content": "Imported fact %d.%d"`, i, j)}
		category := `"category": "observation"`
		for _, f := range []string{"confirmed_at", "expires_at", "created_at", "updated_at"} {
			if g.chance(25) {
				fields = append(fields, `"`+f+`": `+g.timeJSON())
			}
		}
		if g.chance(30) {
			category = `"category": "obligation"`
			fields = append(fields, `"deadline": `+g.timeJSON())
		}
		for _, f := range []string{"confidence", "importance"} {
			if g.chance(30) {
				fields = append(fields, `"`+f+`": `+g.unitJSON())
			}
		}
		if g.chance(20) {
			fields = append(fields, `"extraction_count": `+g.pick("1", "2147483647", g.number()))
		}
		if g.chance(15) {
			category = `"category": "decision"`
			fields = append(fields, fmt.Sprintf(`"key": "imported_%d_%d"`, i, j),
				`"decision": {"decision": "Imported", "reasoning": "r", "decided_at": `+g.timeJSON()+`}`)
		}
		lines = append(lines, "{"+strings.Join(append(fields, category), ", ")+"}")
	}
	path := "/import"
	if g.chance(30) {
		path += "?dry_run=true"
	}
	res := b.send(apiClient, http.MethodPost, "/api/v1"+path, []byte(strings.Join(lines, "\n")+"\n"), "application/x-ndjson",
		map[string]string{"Authorization": "Bearer " + b.writer})
	b.checkAPI("api import", path+" "+truncate(strings.Join(lines, " | "), 400), res)
}

func (b *boundsRun) readProbe(int) {
	g := b.g
	switch g.r.IntN(3) {
	case 0:
		b.api("api brief since", http.MethodGet, "/context?format=json&since="+url.QueryEscape(g.timeText()), "")
	case 1:
		b.api("api recall", http.MethodGet, "/recall?query=rent&limit="+url.QueryEscape(g.pick("1", "100", g.number())), "")
	default:
		b.api("api brief", http.MethodGet, "/context?budget="+url.QueryEscape(g.pick("200", "100000", g.number())), "")
	}
}

// mcp calls a tool with raw arguments and checks the answer: a result, or a
// tool error (or JSON-RPC error) naming one of names, never a failure of
// Tenure.
func (b *boundsRun) mcp(kind, tool, args string, names ...string) {
	b.t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	res := b.send(apiClient, http.MethodPost, "/mcp", []byte(body), "application/json",
		map[string]string{"Authorization": "Bearer " + b.writer, "Accept": "application/json, text/event-stream"})
	what := tool + " " + truncate(args, 300)
	if res.status != http.StatusOK {
		b.fail(kind, "%s: status %d: %s", what, res.status, truncate(string(res.body), 300))
		return
	}
	var rpc struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(res.body, &rpc); err != nil {
		b.fail(kind, "%s: not JSON-RPC: %s", what, truncate(string(res.body), 300))
		return
	}
	var text string
	switch {
	case rpc.Error != nil:
		text = rpc.Error.Message
	case rpc.Result != nil && rpc.Result.IsError:
		for _, c := range rpc.Result.Content {
			text += c.Text
		}
	case rpc.Result != nil:
		b.count(kind, true)
		return
	default:
		b.fail(kind, "%s: neither a result nor an error: %s", what, truncate(string(res.body), 300))
		return
	}
	b.count(kind, false)
	named := false
	for _, n := range names {
		named = named || strings.Contains(text, n)
	}
	if strings.Contains(text, "inside Tenure") || !named {
		b.fail(kind, "%s: refused without naming one of %v: %s", what, names, truncate(text, 300))
	}
}

func (b *boundsRun) mcpProbe(int) {
	g := b.g
	switch g.r.IntN(4) {
	case 0, 1:
		row := b.pushRow()
		if g.chance(30) {
			row = `{"rows": [` + row + `, ` + b.pushRow() + `]}`
		}
		b.mcp("mcp remember", "remember", row, "importance", "ttl_seconds", "confidence", "deadline", "metadata", "rows")
	case 2:
		b.decisionKeys++
		b.mcp("mcp record_decision", "record_decision", fmt.Sprintf(
			`{"entity": "Ann", "key": "mcp_%d", "decision": "Use option %d", "reasoning": "It was cheaper.", "decided_at": %s}`,
			b.decisionKeys, b.decisionKeys, g.timeJSON()), "decided_at")
	default:
		b.mcp("mcp context", "context", `{"format": "json", "since": `+g.timeJSON()+`}`, "since")
	}
}

// consolePost posts a console form and checks the answer: a redirect or a
// page (the change made), or a 422 marking the field at fault.
func (b *boundsRun) consolePost(kind string, who signedIn, path string, form url.Values) {
	b.t.Helper()
	form.Set("_csrf", who.csrf)
	res := b.send(who.client, http.MethodPost, path, []byte(form.Encode()), "application/x-www-form-urlencoded", nil)
	what := path + " " + truncate(form.Encode(), 300)
	switch res.status {
	case http.StatusSeeOther, http.StatusOK:
		b.count(kind, true)
	case http.StatusUnprocessableEntity:
		b.count(kind, false)
		if !bytes.Contains(res.body, []byte(`aria-invalid="true"`)) && !bytes.Contains(res.body, []byte(`role="alert"`)) {
			b.fail(kind, "%s: 422 that marks no field", what)
		}
	default:
		b.fail(kind, "%s: status %d: %s", what, res.status, truncate(string(res.body), 300))
	}
}

var formVersion = regexp.MustCompile(`name="version" value="(\d+)"`)

// pageVersion reads the version an edit form carries.
func (b *boundsRun) pageVersion(path string) string {
	res := b.send(b.console.client, http.MethodGet, path, nil, "", nil)
	if res.status != http.StatusOK {
		b.fail("console page", "GET %s: status %d", path, res.status)
		return "1"
	}
	m := formVersion.FindSubmatch(res.body)
	if m == nil {
		b.fail("console page", "GET %s: no version in the form", path)
		return "1"
	}
	return string(m[1])
}

func (b *boundsRun) consoleFactProbe(int) {
	g := b.g
	id := b.facts[g.r.IntN(len(b.facts))]
	path := "/facts/" + strconv.FormatInt(id, 10)
	b.consolePost("console fact edit", b.console, path, url.Values{
		"version": {b.pageVersion(path)}, "content": {"Ann files the report"}, "category": {"obligation"},
		"confidence": {g.pick(g.unitJSON(), g.unitJSON(), g.formNumber())}, "deadline": {g.formTime()}, "reason": {"bounds"},
	})
}

func (b *boundsRun) consoleDecisionProbe(int) {
	g := b.g
	if g.chance(50) {
		b.decisionKeys++
		b.consolePost("console decision new", b.console, "/decisions", url.Values{
			"scope": {boundsScope}, "entity": {"Ann"}, "key": {"console_" + strconv.Itoa(b.decisionKeys)},
			"decision": {"Use option"}, "reasoning": {"It was cheaper."}, "decided_at": {g.formTime()}, "do_not_reopen": {"on"},
		})
		return
	}
	path := "/decisions/" + strconv.FormatInt(b.decision, 10)
	b.consolePost("console decision edit", b.console, path, url.Values{
		"version": {b.pageVersion(path)}, "decision": {"Keep it"}, "reasoning": {"It works."}, "decided_by": {"ann"},
		"decided_at": {g.formTime()}, "reason": {"bounds"},
	})
}

func (b *boundsRun) policyProbe(int) {
	g := b.g
	b.consolePost("console policy", b.admin, "/policies/"+strconv.FormatInt(b.policy, 10), url.Values{
		"half_life": {g.pick("180", "0.0001", "36500", g.formNumber())}, "unit": {g.pick("days", "hours", "years")},
		"floor": {g.pick("0.10", "0.001", "5e-324", "0.999999", g.formNumber())}, "reason": {"bounds"},
	})
}

// readsAnswer reads back everything the scope holds, after consolidation.
func (b *boundsRun) readsAnswer() {
	t := b.t
	var ids []int64
	for cursor := ""; ; {
		res := b.api("after: facts", http.MethodGet, "/facts?status=all&limit=500"+cursor, "")
		var page struct {
			Items []struct {
				ID int64 `json:"id"`
			} `json:"items"`
			NextCursor *string `json:"next_cursor"`
		}
		if res.status != http.StatusOK || json.Unmarshal(res.body, &page) != nil {
			t.Fatalf("facts list after consolidation: %d %s", res.status, truncate(string(res.body), 300))
		}
		for _, it := range page.Items {
			ids = append(ids, it.ID)
		}
		if page.NextCursor == nil {
			break
		}
		cursor = "&cursor=" + *page.NextCursor
	}
	if len(ids) < len(b.facts) {
		t.Fatalf("facts after consolidation = %d, want at least the %d seeded", len(ids), len(b.facts))
	}
	t.Logf("the scope holds %d facts", len(ids))
	for _, id := range ids {
		if res := b.api("after: fact", http.MethodGet, "/facts/"+strconv.FormatInt(id, 10), ""); res.status != http.StatusOK {
			b.fail("after: fact", "GET fact %d: %d", id, res.status)
		}
	}
	for _, path := range []string{"/recall?query=rent", "/recall?query=passport+renew", "/recall", "/recall?query=gas&limit=100",
		"/context", "/context?format=json", "/context?format=json&since=1970-01-01T00:00:00Z", "/context?since=9000-01-01T00:00:00Z",
		"/decisions?limit=500", "/nodes?limit=500"} {
		res := b.api("after: read", http.MethodGet, path, "")
		if res.status != http.StatusOK {
			b.fail("after: read", "GET %s: %d %s", path, res.status, truncate(string(res.body), 300))
		}
		if path == "/context" && bytes.Contains(res.body, []byte("Nothing is remembered")) {
			b.fail("after: read", "the brief says nothing is remembered: %s", truncate(string(res.body), 300))
		}
	}
	before := b.failures
	b.mcp("after: mcp", "recall", `{"query": "rent", "limit": 100}`)
	b.mcp("after: mcp", "context", `{}`)
	b.mcp("after: mcp", "context", `{"format": "json", "since": "1970-01-01T00:00:00Z"}`)
	b.mcp("after: mcp", "list_decisions", `{"limit": 500}`)
	if c := b.tally["after: mcp"]; c == nil || c[1] != 4 || b.failures != before {
		b.fail("after: mcp", "the reads of MCP did not all answer: %v", c)
	}
	for _, path := range []string{"/", "/facts?scope=" + boundsScope, "/facts?scope=" + boundsScope + "&status=archived",
		"/obligations", "/decisions", "/working?scope=" + boundsScope, "/consolidation", "/policies", "/audit"} {
		if res := b.send(b.console.client, http.MethodGet, path, nil, "", nil); res.status != http.StatusOK {
			b.fail("after: console", "GET %s: %d", path, res.status)
		}
	}
	for _, id := range ids {
		if res := b.send(b.console.client, http.MethodGet, "/facts/"+strconv.FormatInt(id, 10), nil, "", nil); res.status != http.StatusOK {
			b.fail("after: console", "GET /facts/%d: %d", id, res.status)
		}
	}

	// Export: every fact encodes as tenure export writes it, and the file
	// imports into another database.
	store := memory.NewStore(b.pool, memory.Options{})
	var file bytes.Buffer
	enc := json.NewEncoder(&file)
	enc.SetEscapeHTML(false)
	n, err := store.Export(context.Background(), boundsScope, func(f memory.TransferFact) error { return enc.Encode(f) })
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	if n != len(ids) {
		t.Errorf("export wrote %d facts, want %d", n, len(ids))
	}
	lines, err := api.ParseImport(bytes.NewReader(file.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	other := memory.NewStore(pgtest.NewPool(t), memory.Options{})
	report, err := other.Import(context.Background(), memory.Token("bounds"), lines, memory.ImportOptions{})
	if err != nil || report.Facts != n {
		b.fail("after: export", "the export of %d facts does not import into another database: %d imported, %v", n, report.Facts, err)
	}
}

func (b *boundsRun) report(logs *lockedBuffer) {
	t := b.t
	if b.failures > 30 {
		t.Errorf("... and %d more failures", b.failures-30)
	}
	var kinds []string
	for k := range b.tally {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		c := b.tally[k]
		t.Logf("  %-24s sent %4d: accepted %4d, refused naming the field %4d", k, c[0], c[1], c[2])
	}
	errorLines := 0
	for line := range strings.SplitSeq(logs.String(), "\n") {
		if strings.Contains(line, `"level":"ERROR"`) {
			errorLines++
			if errorLines <= 10 {
				t.Errorf("ERROR logged: %s", truncate(line, 400))
			}
		}
	}
	t.Logf("ERROR log lines: %d", errorLines)
}

// boundsGen makes the extremes, from one seeded source.
type boundsGen struct{ r *rand.Rand }

func (g *boundsGen) chance(percent int) bool { return g.r.IntN(100) < percent }

func (g *boundsGen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

func (g *boundsGen) quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// number is a JSON value where a number belongs: mostly numbers at and
// around every bound and far past them, written in every JSON form; now and
// then another type.
func (g *boundsGen) number() string {
	switch g.r.IntN(10) {
	case 0, 1, 2:
		return g.pick("0", "-0", "0.0", "1", "1.0", "0.001", "0.0009999", "0.5", "0.999", "1.0000001", "-0.001", "-1",
			"5e-324", "2e-324", "4.9e-324", "1e-400", "2.2250738585072014e-308", "1e-10", "1E-3", "1e0", "10e-1",
			"1e400", "-1e400", "1.7976931348623157e308", "1.7976931348623159e308", "-1.7976931348623157e308")
	case 3, 4:
		return g.pick("1", "60", "3600", "31536000", "31536001", "2147483647", "2147483648", "-2147483648", "-2147483649",
			"4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
			"1e30", "1.5", "59.999", "31536000.5", "3.1536e7", "100000000000000000000000000000")
	case 5:
		return g.pick(`"NaN"`, `"Infinity"`, `"-Infinity"`, `"0.5"`, `null`, `true`, `[]`, `{}`, `"5e-324"`)
	case 6:
		return g.unit()
	case 7:
		return strconv.Itoa(g.r.IntN(40000000) - 10)
	default:
		// Any magnitude a float may take, and some it may not.
		m := g.r.Float64()*9 + 1
		if g.chance(30) {
			m = -m
		}
		return strconv.FormatFloat(m, 'f', g.r.IntN(6), 64) + "e" + strconv.Itoa(g.r.IntN(700)-350)
	}
}

// unitJSON is a confidence or an importance: half the time one within the
// bounds, at them or near them, otherwise any number().
func (g *boundsGen) unitJSON() string {
	if g.chance(50) {
		return g.pick("0", "0.001", "0.0010000000001", "1", "0.999999999", "0.5", "1e-3", "1.0", "0.10", "0.0999999")
	}
	return g.number()
}

// ttlJSON is a ttl_seconds: half the time one within the bounds.
func (g *boundsGen) ttlJSON() string {
	if g.chance(50) {
		return g.pick("1", "31536000", "60", "3600", "31535999")
	}
	return g.number()
}

// unit is a number around the range of a confidence or importance.
func (g *boundsGen) unit() string {
	switch g.r.IntN(3) {
	case 0:
		return strconv.FormatFloat(g.r.Float64(), 'g', -1, 64)
	case 1:
		return strconv.FormatFloat(g.r.Float64()*0.002, 'g', -1, 64)
	}
	return strconv.FormatFloat(math.Nextafter(1, 2)+g.r.Float64()*1e-9, 'g', -1, 64)
}

var boundsZones = []string{"Z", "z", "+00:00", "-00:00", "+14:00", "-12:00", "+05:30", "-23:59", "+23:59", "+01:00", "-01:00"}

// timeText is an RFC 3339 time at and around every bound (and some text
// that is not one).
func (g *boundsGen) timeText() string {
	if g.chance(35) {
		// Within the bounds, at them or close to them.
		return g.pick("1970-01-01T00:00:00Z", "9000-01-01T00:00:00Z", "8999-12-31T23:59:59.999999999Z", "9000-01-01T13:59:59+14:00",
			"1970-01-01T00:00:00-01:00", "8999-12-31T12:00:00-11:30", "1970-01-01T00:00:00.000000001Z", "2026-12-31T17:00:00Z",
			"2027-06-30T23:59:59.5+05:30", "8000-02-29T00:00:00Z")
	}
	if g.chance(8) {
		return g.pick("", "now", "2026-01-01", "2026-02-30T00:00:00Z", "9999-13-01T00:00:00Z", "10000-01-01T00:00:00Z",
			"+9999-12-31T23:59:59Z", "2026-01-01T24:00:00Z", "2026-01-01 00:00:00Z", "2026-01-01T00:00:00+25:00", "1e9", "-0001-01-01T00:00:00Z")
	}
	if g.chance(20) {
		return g.pick("1970-01-01T00:00:00Z", "9000-01-01T00:00:00Z", "1969-12-31T23:59:59.999999999Z", "9000-01-01T00:00:00.000000001Z",
			"1970-01-01T00:00:00+00:01", "1970-01-01T13:00:00+14:00", "8999-12-31T10:00:00-14:00", "9000-01-01T13:59:59+14:00",
			"0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "9999-12-31T23:59:59-23:59")
	}
	year := g.pick("0000", "0001", "0100", "1900", "1969", "1970", "1971", "2026", "2027", "2999", "8999", "9000", "9001", "9998", "9999")
	if g.chance(20) {
		year = fmt.Sprintf("%04d", g.r.IntN(10000))
	}
	s := fmt.Sprintf("%s-%02d-%02dT%02d:%02d:%02d", year, 1+g.r.IntN(12), 1+g.r.IntN(28), g.r.IntN(24), g.r.IntN(60), g.r.IntN(60))
	if g.chance(40) {
		s += "." + fmt.Sprintf("%09d", g.r.IntN(1000000000))[:1+g.r.IntN(9)]
	}
	return s + boundsZones[g.r.IntN(len(boundsZones))]
}

// timeJSON is a time as a JSON value: a string mostly, now and then a
// number or null where a time belongs.
func (g *boundsGen) timeJSON() string {
	if g.chance(5) {
		return g.pick("null", "0", "1e400", "-1", "true")
	}
	return g.quote(g.timeText())
}

// dateText is a date a person writes in a text.
func (g *boundsGen) dateText() string {
	return fmt.Sprintf("%s-%02d-%02d", g.pick("0000", "0001", "1969", "2026", "8999", "9000", "9999"), 1+g.r.IntN(12), 1+g.r.IntN(28))
}

// formNumber is what a person may type where the console asks a number.
func (g *boundsGen) formNumber() string {
	return g.pick("", " ", "NaN", "nan", "Inf", "-Inf", "+Inf", "1e400", "1e-400", "5e-324", "0x1p-3", "1_000", "٣", "0.5", "1", "0", "-0",
		"0.0005", "1.0000000001", "3e2", strings.Repeat("9", 400))
}

// formTime is what a datetime-local field may carry.
func (g *boundsGen) formTime() string {
	if g.chance(20) {
		return g.pick("", "now", "2026-13-01T00:00", "0000-01-01T00:00", "0001-01-01T00:00", "9999-12-31T23:59", "1969-12-31T23:59:59",
			"9000-01-01T00:00", "9000-01-01T00:00:00.000001", "1970-01-01T00:00", "10000-01-01T00:00")
	}
	t := g.timeText()
	if len(t) > 19 && g.chance(60) {
		t = t[:16] // the datetime-local form: no seconds, no zone
	}
	return t
}
