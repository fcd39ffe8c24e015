package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/demo"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/server"
	"github.com/tenurehq/tenure/static"
)

// The robustness test sends a real server (API, MCP and console over one
// database holding the demo memory) thousands of generated requests full of
// what clients get wrong or send on purpose: NUL characters, bytes that are
// not UTF-8, control characters, JSON nested 9,999 levels deep or 15 MiB
// large, values of the wrong type, odd and repeated query parameters, long
// strings and every kind of unicode. The requests are pseudo-random but the
// same on every run (a fixed seed). None may fail on our side: no 5xx, no
// ERROR in the log, no MCP tool failing "inside Tenure", and every 4xx of
// the API in its documented shape {"error": {"code", "message"}}. The console
// is driven as a reviewer and as an admin (users, tokens, policies), and its
// sign-in form by a client without a session.
const (
	robustSeed     = 20261130
	robustAPI      = 1200
	robustMCP      = 600
	robustConsoleN = 800
	robustWorkers  = 4
	robustDeadline = 60 * time.Second
	robustScope    = "acme-support"
)

// probe is one generated request.
type probe struct {
	surface     string // api, mcp, console
	kind        string // what it exercises, for failure messages
	method      string
	path        string // with its query string, escaped
	body        []byte
	contentType string
	header      map[string]string
	client      string // the console's client: "" the reviewer, admin, or anonymous (no session)
}

// outcome is what one probe got.
type outcome struct {
	status int
	body   []byte
	err    error
}

// tally counts the answers of one surface.
type tally struct {
	sent, ok2xx, redirect3xx, client4xx, server5xx, toolErrors, rpcErrors int
}

func TestRobustness(t *testing.T) {
	logs := &lockedBuffer{}
	srv, pool := robustServer(t, logs)
	ctx := context.Background()
	writer := robustToken(t, pool, robustScope, "robust-writer", auth.TokenWriter)
	reader := robustToken(t, pool, robustScope, "robust-reader", auth.TokenReader)
	console := robustConsole(t, srv, "reviewer@example.com")
	admin := robustConsole(t, srv, "admin@example.com")
	anonymous := &http.Client{Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	ids := func(sql string) []int64 {
		rows, err := pool.Query(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			out = append(out, id)
		}
		return out
	}
	g := &generator{
		r:         rand.New(rand.NewPCG(robustSeed, 1)),
		facts:     ids(`SELECT id FROM entity_facts ORDER BY id LIMIT 40`),
		ownFacts:  ids(`SELECT id FROM entity_facts WHERE scope = '` + robustScope + `' ORDER BY id LIMIT 40`),
		decisions: ids(`SELECT id FROM decisions ORDER BY id`),
		nodes:     ids(`SELECT id FROM memory_nodes ORDER BY id LIMIT 40`),
		policies:  ids(`SELECT id FROM decay_policies ORDER BY id`),
		// Users and tokens the admin's forms may change: never the accounts
		// and tokens the probes use.
		users:  ids(`INSERT INTO users (email, name, role, password_hash) VALUES ('target@example.com', 'Target', 'viewer', 'x') RETURNING id`),
		tokens: []int64{robustTokenID(t, pool, "robust-target-1"), robustTokenID(t, pool, "robust-target-2")},
		tombstones: ids(`INSERT INTO node_tombstones (node_id, scope, content, properties, importance, node_created_at, reason)
			SELECT 900000 + g, '` + robustScope + `', 'pruned row ' || g, '{"durability": "expired"}', 0.5, now(), 'expired'
			FROM generate_series(1, 40) g RETURNING id`),
	}
	if len(g.policies) == 0 {
		t.Fatal("no decay policies to probe")
	}
	for _, f := range g.facts[:5] {
		var id int64
		if err := pool.QueryRow(ctx, `INSERT INTO review_items (kind, scope, fact_id, detail)
			VALUES ('repeated_mood', $1, $2, '{"extraction_count": 3}') RETURNING id`, robustScope, f).Scan(&id); err != nil {
			t.Fatal(err)
		}
		g.items = append(g.items, id)
	}

	var probes []probe
	for range robustAPI {
		probes = append(probes, g.apiProbe(writer, reader))
	}
	for range robustMCP {
		probes = append(probes, g.mcpProbe(writer))
	}
	for range robustConsoleN {
		probes = append(probes, g.consoleProbe(console.csrf, admin.csrf))
	}
	// Interleave the surfaces, the same way every run.
	g.r.Shuffle(len(probes), func(i, j int) { probes[i], probes[j] = probes[j], probes[i] })

	start := time.Now()
	deadline := start.Add(robustDeadline)
	outcomes := make([]*outcome, len(probes))
	next := make(chan int)
	var wg sync.WaitGroup
	for range robustWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				client := console.client
				switch probes[i].client {
				case "admin":
					client = admin.client
				case "anonymous":
					client = anonymous
				}
				outcomes[i] = send(srv.URL, client, probes[i])
			}
		}()
	}
	for i := range probes {
		if time.Now().After(deadline) {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)

	counts := map[string]*tally{"api": {}, "mcp": {}, "console": {}}
	failures := 0
	fail := func(p probe, format string, args ...any) {
		failures++
		if failures <= 25 {
			t.Errorf("%s %s %s (%s): %s", p.surface, p.method, truncate(p.path, 200), p.kind, fmt.Sprintf(format, args...))
		}
	}
	sent := 0
	byKind := map[string]*[3]int{} // sent, 2xx/3xx, 4xx
	samples := map[string][]string{}
	for i, o := range outcomes {
		if o == nil {
			continue
		}
		sent++
		p := probes[i]
		k := byKind[p.surface+" "+p.kind]
		if k == nil {
			k = &[3]int{}
			byKind[p.surface+" "+p.kind] = k
		}
		k[0]++
		if o.status < 400 {
			k[1]++
		} else if o.status < 500 {
			k[2]++
			if len(samples[p.kind]) < 25 {
				samples[p.kind] = append(samples[p.kind], truncate(string(o.body), 160))
			}
		}
		c := counts[p.surface]
		c.sent++
		if o.err != nil {
			fail(p, "transport error: %v", o.err)
			continue
		}
		switch {
		case o.status >= 500:
			c.server5xx++
			fail(p, "status %d: %s", o.status, truncate(string(o.body), 300))
		case o.status >= 400:
			c.client4xx++
		case o.status >= 300:
			c.redirect3xx++
		default:
			c.ok2xx++
		}
		switch p.surface {
		case "api":
			if o.status >= 400 && o.status < 500 && p.method != http.MethodHead {
				var e struct {
					Error *struct {
						Code    string `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal(o.body, &e); err != nil || e.Error == nil || e.Error.Code == "" || e.Error.Message == "" {
					fail(p, "status %d without the error shape: %s", o.status, truncate(string(o.body), 300))
				}
			}
		case "mcp":
			var rpc struct {
				Result *struct {
					IsError bool              `json:"isError"`
					Content []json.RawMessage `json:"content"`
				} `json:"result"`
				Error *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if o.status == http.StatusOK && json.Unmarshal(o.body, &rpc) == nil {
				switch {
				case rpc.Error != nil:
					c.rpcErrors++
				case rpc.Result != nil && rpc.Result.IsError:
					c.toolErrors++
					if bytes.Contains(o.body, []byte("inside Tenure")) {
						fail(p, "the tool failed on our side: %s", truncate(string(o.body), 300))
					}
				}
			}
		case "console":
			if p.method == http.MethodPost && o.status == http.StatusForbidden {
				fail(p, "403: the form's CSRF token was refused, so the handler was never exercised")
			}
		}
	}
	if failures > 25 {
		t.Errorf("... and %d more failures", failures-25)
	}

	for _, k := range slices.Sorted(maps.Keys(byKind)) {
		c := byKind[k]
		t.Logf("  %-30s sent %4d: accepted %4d, refused (4xx) %4d", k, c[0], c[1], c[2])
	}
	// ROBUST_SAMPLES=1 with -v shows a few refusals of each kind, to check
	// that the generator reaches past the first validation.
	if testing.Verbose() && os.Getenv("ROBUST_SAMPLES") != "" {
		for k, ss := range samples {
			for _, s := range ss {
				t.Logf("sample %s: %s", k, s)
			}
		}
	}
	var total tally
	for _, name := range []string{"api", "mcp", "console"} {
		c := counts[name]
		t.Logf("%-8s sent %4d: 2xx %4d, 3xx %4d, 4xx %4d, 5xx %d; MCP tool errors %d, JSON-RPC errors %d",
			name, c.sent, c.ok2xx, c.redirect3xx, c.client4xx, c.server5xx, c.toolErrors, c.rpcErrors)
		total.sent += c.sent
		total.client4xx += c.client4xx
		total.server5xx += c.server5xx
	}
	t.Logf("total    sent %4d of %d in %s (%.0f requests/s): 4xx %d, 5xx %d",
		sent, len(probes), elapsed.Round(time.Millisecond), float64(sent)/elapsed.Seconds(), total.client4xx, total.server5xx)
	if sent < len(probes) {
		t.Logf("the %s budget ran out: %d of %d requests were not sent", robustDeadline, len(probes)-sent, len(probes))
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

// robustServer starts the whole application (console, API and MCP) over a
// fresh database holding the demo memory, logging JSON into logs.
func robustServer(t *testing.T, logs io.Writer) (*httptest.Server, *pgxpool.Pool) {
	t.Helper()
	pool := pgtest.NewPool(t)
	if _, err := demo.Load(context.Background(), pool, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, u := range []auth.NewUser{
		{Email: "reviewer@example.com", Name: "Rita Reviewer", Role: "reviewer", Password: password},
		{Email: "admin@example.com", Name: "Ada Admin", Role: "admin", Password: password},
	} {
		if _, err := auth.SeedUser(context.Background(), pool, u); err != nil {
			t.Fatal(err)
		}
	}
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	app, err := server.New(server.Config{Pool: pool, Assets: assets, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)
	return srv, pool
}

func robustToken(t *testing.T, pool *pgxpool.Pool, scope, name, role string) string {
	t.Helper()
	secret, _, err := auth.SeedToken(context.Background(), pool, auth.NewToken{Name: name, Scope: scope, Role: role}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// robustTokenID creates a token of robustScope that only the admin's forms
// use, and returns its id.
func robustTokenID(t *testing.T, pool *pgxpool.Pool, name string) int64 {
	t.Helper()
	_, tok, err := auth.SeedToken(context.Background(), pool, auth.NewToken{Name: name, Scope: robustScope, Role: auth.TokenReader}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tok.ID
}

// signedIn is a reviewer's browser stand-in: a cookie jar with a session
// and the session's CSRF token.
type signedIn struct {
	client *http.Client
	csrf   string
}

var robustCSRF = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

func robustConsole(t *testing.T, srv *httptest.Server, email string) signedIn {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page := func(path string) string {
		res, err := client.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		m := robustCSRF.FindSubmatch(b)
		if m == nil {
			t.Fatalf("GET %s: no CSRF token on the page (status %d)", path, res.StatusCode)
		}
		return string(m[1])
	}
	res, err := client.PostForm(srv.URL+"/login", url.Values{
		"email": {email}, "password": {password}, "_csrf": {page("/login")},
	})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in = %d, want 303", res.StatusCode)
	}
	return signedIn{client: client, csrf: page("/facts")}
}

// send makes one request; the API and MCP need no cookies, but sharing the
// console's client is harmless: they ignore sessions.
func send(base string, client *http.Client, p probe) *outcome {
	req, err := http.NewRequest(p.method, base+p.path, bytes.NewReader(p.body))
	if err != nil {
		return &outcome{err: err}
	}
	if p.contentType != "" {
		req.Header.Set("Content-Type", p.contentType)
	}
	for k, v := range p.header {
		req.Header.Set(k, v)
	}
	res, err := client.Do(req)
	if err != nil {
		return &outcome{err: err}
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return &outcome{status: res.StatusCode, body: body, err: err}
}

// generator makes the requests, from one seeded source.
type generator struct {
	r                                        *rand.Rand
	facts, ownFacts, decisions, nodes, items []int64
	policies, users, tokens, tombstones      []int64
}

func (g *generator) pick(options ...string) string { return options[g.r.IntN(len(options))] }

func (g *generator) chance(percent int) bool { return g.r.IntN(100) < percent }

// badBytes are byte sequences that are not UTF-8: a lone continuation byte,
// bytes that never occur, a truncated sequence, an overlong slash and an
// encoded surrogate.
var badBytes = []string{"\x80", "\xff", "\xfe", "\xc3", "\xe2\x82", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80"}

var words = []string{"Edmund", "lives", "in", "Lisbon", "prefers", "dark", "mode", "deadline", "Friday", "we", "decided",
	"PostgreSQL", "not", "MySQL", "because", "feeling", "stressed", "today", "is", "in", "a", "meeting", "ETA", "30s"}

var unicodeSamples = []string{"İstanbul", "Kelvin K", "東京タワー", "🎉👩‍👩‍👧", "مرحبا بالعالم", "e\u0301", "\u200b\u200d\ufeff",
	"\u2028\u2029", "Ω≈ç√", "\U0010fffd", "ǅ", "ß→SS", "\u00a0nbsp"}

func (g *generator) words(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = words[g.r.IntN(len(words))]
	}
	return strings.Join(parts, " ")
}

// insert puts what at a random place in s.
func (g *generator) insert(s, what string) string {
	i := g.r.IntN(len(s) + 1)
	return s[:i] + what + s[i:]
}

// text is a generated string: half the time one that may be stored (plain,
// unicode, long, hostile but harmless), half the time one that may not (a
// NUL, bytes that are not UTF-8, control characters, random bytes).
func (g *generator) text() string {
	if g.chance(50) {
		return g.benign()
	}
	return g.hostile()
}

// benign is text the store takes, though it may test its limits.
func (g *generator) benign() string {
	base := g.words(1 + g.r.IntN(6))
	switch g.r.IntN(10) {
	case 0:
		return ""
	case 1, 2, 3:
		return base
	case 4:
		return unicodeSamples[g.r.IntN(len(unicodeSamples))] + " " + base
	case 5:
		return strings.Repeat(base+" ", 1+g.r.IntN(2500))
	case 6:
		return strings.Repeat(unicodeSamples[g.r.IntN(len(unicodeSamples))], 1+g.r.IntN(800))
	case 7:
		return g.pick("   ", "\t\n\r", "\n", " \u00a0 ", "line one\nline two\ttabbed\r\n")
	case 8:
		return g.pick(`'; DROP TABLE entity_facts; --`, `%_\`, `"exact phrase" -word or`, `<script>alert(1)</script>`, `\u0000`, `%00`,
			`../../etc/passwd`, `{{.}}`, `${jndi:ldap://x}`, `a:b & c | !d`, `*`, `(`)
	default:
		return g.pick("durable", "transient", "expired", "permanent", "long_term", "short_term", "ephemeral", "mood", "observation",
			"decision", "lives_in", robustScope, "1", "-1", "0", "9223372036854775808", "true", "null")
	}
}

// hostile is text the store must refuse (random bytes, rarely, are clean).
func (g *generator) hostile() string {
	base := g.words(1 + g.r.IntN(6))
	switch g.r.IntN(6) {
	case 0, 1:
		return g.insert(base, "\x00")
	case 2:
		return g.insert(base, badBytes[g.r.IntN(len(badBytes))])
	case 3:
		c := byte(1 + g.r.IntN(31))
		if c == '\t' || c == '\n' || c == '\r' {
			c = 0x1b
		}
		return g.insert(base, string(rune(c)))
	case 4:
		b := make([]byte, 1+g.r.IntN(40))
		for i := range b {
			b[i] = byte(g.r.UintN(256))
		}
		return string(b)
	default:
		return g.insert(g.insert(unicodeSamples[g.r.IntN(len(unicodeSamples))], "\x00"), "\xff")
	}
}

// plausible is a value a client that read the documentation would send for
// field: the values each endpoint accepts, with benign text for free text.
func (g *generator) plausible(field string) string {
	q := strconv.Quote
	switch field {
	case "durability":
		return q(g.pick("durable", "transient", "expired", "permanent", "long_term", "short_term", "ephemeral"))
	case "category":
		return q(g.pick("observation", "preference", "mood", "state", "obligation", "identity", "routine"))
	case "key":
		return q(g.pick("lives_in", "prefers", "database", "", "tone"))
	case "entity_kind":
		return q(g.pick("person", "thing", "project"))
	case "confidence", "importance":
		return g.pick("0.7", "0.2", "1", "0")
	case "ttl_seconds":
		return g.pick("60", "3600")
	case "version":
		return g.pick("1", "2", "3")
	case "expires_at", "deadline":
		return q(time.Now().Add(time.Duration(1+g.r.IntN(1000)) * time.Hour).UTC().Format(time.RFC3339))
	case "decided_at":
		return q(time.Now().Add(-time.Duration(1+g.r.IntN(1000)) * time.Hour).UTC().Format(time.RFC3339))
	case "alternatives":
		return "[" + g.jsonString(g.benign()) + "," + g.jsonString(g.benign()) + "]"
	case "do_not_reopen", "store", "locked", "pending":
		return g.pick("true", "false")
	case "mode":
		return q(g.pick("rules", "rules", "llm"))
	case "limit":
		return g.pick("1", "5", "50")
	case "budget":
		return g.pick("200", "1000", "4000")
	case "format":
		return q(g.pick("text", "json"))
	case "node_id":
		return g.rawID(g.nodes)
	case "cursor":
		return q(g.rawID(g.facts))
	case "scope":
		return q(robustScope)
	case "data_type":
		return q(g.pick("permanent", "identity", "preference", "observation", "temporal"))
	case "status":
		return q("active")
	case "source":
		return q(g.pick("api", "import"))
	case "metadata", "properties":
		if g.chance(50) {
			return `{"source": ` + g.jsonString(g.benign()) + `, "tags": [` + g.jsonString(g.benign()) + `]}`
		}
		return g.freeForm()
	case "decision{}": // an import line's decision
		return `{"decision": ` + g.jsonString(g.benign()) + `, "reasoning": ` + g.jsonString(g.benign()) +
			`, "alternatives": ` + g.plausible("alternatives") + `}`
	}
	return g.jsonString(g.benign())
}

// formValue is plausible's counterpart for a console form field, unquoted.
func (g *generator) formValue(field string) string {
	switch field {
	case "durability":
		return g.pick("permanent", "long_term", "short_term", "ephemeral")
	case "category":
		return g.pick("observation", "preference", "state", "routine")
	case "action":
		return g.pick("archive", "restore", "reclassify", "accept", "merge", "dismiss")
	case "marker":
		return g.pick("durable", "transient", "expired")
	case "confidence":
		return g.pick("0.7", "0.25", "1")
	case "version":
		return g.pick("1", "2")
	case "key":
		return g.pick("lives_in", "prefers", "database")
	case "scope", "filter_scope":
		return robustScope
	case "decided_at", "deadline":
		return time.Now().Add(-time.Duration(g.r.IntN(1000)) * time.Hour).UTC().Format("2006-01-02T15:04")
	case "do_not_reopen":
		return "on"
	case "return":
		return g.pick("/facts", "/working?scope="+robustScope, "//evil.example", "/facts?q=%00")
	}
	return g.benign()
}

// jsonString writes s as a JSON string byte for byte: quotes, backslashes
// and control characters escaped, everything else (bytes that are not UTF-8
// included) as it is. Now and then a control character is left raw, which
// makes the document invalid JSON.
func (g *generator) jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	raw := g.chance(3)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 && !raw:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// scalar is a JSON value that is usually a string, sometimes a number, a
// boolean, null or a container.
func (g *generator) scalar() string {
	switch g.r.IntN(10) {
	case 0:
		return strconv.FormatFloat(g.r.NormFloat64()*1e3, 'g', -1, 64)
	case 1:
		return g.pick("true", "false", "null", "1e999", "-0", "0.5", "2147483648", "[]", "{}")
	default:
		return g.jsonString(g.text())
	}
}

// object is a JSON object of n generated keys and values, nested at most
// depth levels.
func (g *generator) object(n, depth int) string {
	parts := make([]string, 0, n)
	for range n {
		var v string
		if depth > 0 && g.chance(25) {
			if g.chance(50) {
				v = g.object(1+g.r.IntN(3), depth-1)
			} else {
				v = "[" + g.scalar() + "," + g.scalar() + "]"
			}
		} else {
			v = g.scalar()
		}
		parts = append(parts, g.jsonString(g.text())+":"+v)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// nested is a JSON value levels deep.
func nested(levels int) string {
	var b strings.Builder
	for i := range levels {
		if i%2 == 0 {
			b.WriteString(`{"a":`)
		} else {
			b.WriteString(`[`)
		}
	}
	b.WriteString(`"leaf"`)
	for i := levels - 1; i >= 0; i-- {
		if i%2 == 0 {
			b.WriteString(`}`)
		} else {
			b.WriteString(`]`)
		}
	}
	return b.String()
}

// freeForm is a metadata or properties value: mostly small and generated,
// sometimes deep, large, or not an object at all.
func (g *generator) freeForm() string {
	switch g.r.IntN(20) {
	case 0:
		return nested([]int{31, 32, 33, 100, 1000, 9999}[g.r.IntN(6)])
	case 1:
		if g.chance(3) {
			return `{"blob": "` + strings.Repeat("x", 15<<20) + `"}`
		}
		return `{"blob": "` + strings.Repeat("é", (32<<10)+g.r.IntN(300<<10)) + `"}`
	case 2:
		return g.pick(`"metadata"`, `[1, 2]`, `5`, `null`, `true`)
	case 3:
		return `{"entity": ` + g.jsonString(g.text()) + `, "key": ` + g.jsonString(g.text()) + `, "category": ` + g.scalar() +
			`, "confidence": ` + g.scalar() + `, "alternatives": [` + g.scalar() + `], "deadline": ` + g.scalar() + `}`
	case 4:
		return `{"durability": ` + g.scalar() + `}`
	default:
		return g.object(1+g.r.IntN(4), 3)
	}
}

// fields writes a JSON object of the named fields with plausible values; a
// name ending in "?" is optional, present one time in four. Most objects
// get one or two fields wrong (any value: wrong types, hostile text, deep
// or huge JSON); some get everything right.
func (g *generator) fields(names ...string) string {
	var wrong []int
	if g.chance(60) {
		wrong = []int{g.r.IntN(len(names)), g.r.IntN(len(names))}[:1+g.r.IntN(2)]
	}
	var parts []string
	for i, n := range names {
		n, optional := strings.CutSuffix(n, "?")
		mutate := slices.Contains(wrong, i)
		if !mutate && optional && !g.chance(25) {
			continue
		}
		v := g.plausible(n)
		if mutate {
			switch n {
			case "metadata", "properties":
				v = g.freeForm()
			case "alternatives":
				v = "[" + g.scalar() + "," + g.scalar() + "]"
			default:
				v = g.scalar()
			}
		}
		parts = append(parts, g.jsonString(strings.TrimSuffix(n, "{}"))+":"+v)
	}
	if g.chance(4) {
		parts = append(parts, g.jsonString(g.text())+":"+g.scalar()) // an unknown field
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// garbage is a body that is not the JSON object an endpoint wants.
func (g *generator) garbage() []byte {
	return []byte(g.pick("", "[]", `"x"`, "null", "{", `{"content": "x"} {"content": "y"}`, "\xff\xfe", "{\"content\": \"a\x00b\"}",
		`{"content": 5}`, `{"nodes": {}}`, `{"importance": "0.5"}`, `{"ttl_seconds": 3000000000}`, nested(10001)))
}

// query is a generated query string with some of names, unknown names and
// repeated ones now and then.
func (g *generator) query(names ...string) string {
	v := url.Values{}
	for _, n := range names {
		if g.chance(45) {
			v.Add(n, g.queryValue(n))
		}
	}
	if g.chance(8) {
		v.Add(g.text(), g.text())
	}
	if g.chance(5) && len(names) > 0 {
		n := names[g.r.IntN(len(names))]
		v.Add(n, g.text())
		v.Add(n, g.text())
	}
	q := v.Encode()
	if g.chance(4) {
		q += g.pick("&%zz=1", "&q=%", "&limit=%00", "&=", "&&&", "&q=%FF%FE")
	}
	if q == "" {
		return ""
	}
	return "?" + strings.TrimPrefix(q, "&")
}

// rawID is one of ids, or now and then something that is not an id.
func (g *generator) rawID(ids []int64) string {
	if len(ids) == 0 || g.chance(10) {
		return g.pick("0", "-1", "abc", "99999999", "1e3", "9223372036854775808", g.text())
	}
	return strconv.FormatInt(ids[g.r.IntN(len(ids))], 10)
}

// id is rawID as a path segment.
// queryValue is a value for query parameter name: often one the route
// accepts, often not.
func (g *generator) queryValue(name string) string {
	if g.chance(50) {
		return g.text()
	}
	switch name {
	case "limit", "budget", "run", "phase":
		return g.pick("1", "10", "200", "1000", "0", "-5", "abc")
	case "cursor", "before", "after", "target_id":
		return g.rawID(g.facts)
	case "scope":
		return g.pick(robustScope, "personal-assistant", "platform-ops")
	case "locked", "pending", "dry_run":
		return g.pick("true", "false")
	case "status":
		return g.pick("active", "archived", "all")
	case "format":
		return g.pick("text", "json")
	case "since", "until":
		return g.pick("2026-01-01", "2026-11-30T12:00:00Z", "yesterday")
	case "actor":
		return g.pick("user:reviewer@example.com", "reviewer@example.com", "token:robust-writer")
	}
	if s, err := strconv.Unquote(g.plausible(name)); err == nil {
		return s
	}
	return g.benign()
}

func (g *generator) id(ids []int64) string { return url.PathEscape(g.rawID(ids)) }

func (g *generator) apiProbe(writer, reader string) probe {
	token := writer
	if g.chance(5) {
		token = reader
	}
	scope := "/api/v1/scopes/" + robustScope
	if g.chance(4) {
		scope = "/api/v1/scopes/" + url.PathEscape(g.text())
	}
	p := probe{surface: "api", method: http.MethodGet, contentType: "application/json",
		header: map[string]string{"Authorization": "Bearer " + token}}
	body := func(fields ...string) {
		p.method = http.MethodPost
		if g.chance(7) {
			p.body = g.garbage()
			return
		}
		p.body = []byte(g.fields(fields...))
	}
	switch n := g.r.IntN(100); {
	case n < 22:
		p.kind, p.path = "push", scope+"/nodes"
		switch {
		case g.chance(25):
			rows := make([]string, 1+g.r.IntN(4))
			for i := range rows {
				rows[i] = g.fields("content", "durability?", "metadata?", "importance?", "ttl_seconds?", "properties?")
			}
			p.method, p.body = http.MethodPost, []byte(`{"nodes": [`+strings.Join(rows, ",")+`]}`)
		default:
			body("content", "durability?", "metadata?", "importance?", "ttl_seconds?", "properties?")
		}
	case n < 32:
		p.kind, p.path = "fact create", scope+"/facts"
		body("entity", "entity_kind?", "key?", "content", "durability?", "category?", "data_type?", "confidence?", "importance?", "expires_at?", "deadline?")
	case n < 37:
		p.kind, p.path = "fact patch", scope+"/facts/"+g.id(g.ownFacts)
		body("version", "content?", "key?", "durability?", "category?", "confidence?", "importance?", "deadline?", "expires_at?", "reason?")
		p.method = http.MethodPatch
	case n < 45:
		p.kind, p.path = "decision create", scope+"/decisions"
		body("entity", "entity_kind?", "key", "decision", "alternatives?", "reasoning", "decided_by?", "decided_at?", "do_not_reopen?")
	case n < 53:
		p.kind, p.path = "facts list", scope+"/facts"+g.query("category", "durability", "entity", "status", "query", "q", "limit", "cursor")
	case n < 60:
		p.kind, p.path = "decisions list", scope+"/decisions"+g.query("entity", "locked", "query", "q", "limit", "cursor")
	case n < 68:
		p.kind, p.path = "recall", scope+"/recall"+g.query("query", "q", "category", "durability", "entity", "limit")
	case n < 73:
		p.kind, p.path = "context", scope+"/context"+g.query("budget", "entity", "format")
	case n < 77:
		p.kind, p.path = "nodes list", scope+"/nodes"+g.query("durability", "pending", "limit", "cursor")
	case n < 82:
		p.kind, p.path = "extract", scope+"/extract"
		body("text", "entity?", "mode?", "store?")
	case n < 88:
		p.kind, p.path = "import", "/api/v1/import"+g.pick("?dry_run=true", "?dry_run=true", "", "?dry_run="+url.QueryEscape(g.text()))
		lines := make([]string, 1+g.r.IntN(4))
		for i := range lines {
			lines[i] = g.fields("scope", "entity", "entity_kind?", "key?", "content", "durability", "category", "data_type?",
				"confidence?", "status?", "archive_reason?", "source?", "decision{}?")
		}
		p.method, p.body = http.MethodPost, []byte(strings.Join(lines, "\n"))
	case n < 92:
		p.kind, p.path = "node durability", scope+"/nodes/"+g.id(g.nodes)+"/durability"
		body("durability")
	case n < 95:
		p.kind, p.path = "rejections", "/api/v1/consolidation/rejections"+g.query("run", "phase", "reason", "source", "limit", "cursor")
	case n < 97:
		p.kind, p.path = "fact show", scope+"/facts/"+g.id(g.ownFacts)+g.query("x")
	default:
		p.kind, p.path = "decision show", scope+"/decisions/"+g.id(g.decisions)
	}
	return p
}

func (g *generator) mcpProbe(token string) probe {
	p := probe{surface: "mcp", method: http.MethodPost, path: "/mcp", contentType: "application/json",
		header: map[string]string{"Authorization": "Bearer " + token, "Accept": "application/json, text/event-stream"}}
	tools := map[string][]string{
		"remember":        {"content", "durability?", "metadata?", "importance?", "ttl_seconds?", "properties?"},
		"recall":          {"query?", "category?", "durability?", "entity?", "limit?"},
		"context":         {"budget?", "format?", "entity?"},
		"record_decision": {"entity", "key", "decision", "reasoning", "alternatives?", "decided_by?", "decided_at?", "do_not_reopen?"},
		"set_durability":  {"node_id", "durability"},
		"list_decisions":  {"entity?", "locked?", "query?", "limit?", "cursor?"},
		"extract":         {"text", "entity?", "store?", "mode?"},
	}
	names := slices.Sorted(maps.Keys(tools))
	tool := names[g.r.IntN(len(names))]
	p.kind = "tools/call " + tool
	args := g.fields(tools[tool]...)
	if tool == "remember" && g.chance(20) {
		rows := make([]string, 1+g.r.IntN(3))
		for i := range rows {
			rows[i] = g.fields("content", "durability?", "metadata?", "properties?")
		}
		args = `{"rows": [` + strings.Join(rows, ",") + `]}`
	}
	name := g.jsonString(tool)
	switch g.r.IntN(25) {
	case 0:
		name = g.jsonString(g.text()) // an unknown tool
	case 1:
		args = g.pick(`[]`, `"x"`, `5`, `null`, nested(2000))
	case 2:
		p.kind, p.body = "malformed JSON-RPC", g.garbage()
		return p
	}
	p.body = []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(g.r.IntN(1000)) + `,"method":"tools/call","params":{"name":` + name + `,"arguments":` + args + `}}`)
	return p
}

// robustLoginCSRF is the sign-in form's double-submit token the sign-in
// probes send, as cookie and field.
const robustLoginCSRF = "robust-login-csrf"

func (g *generator) consoleProbe(csrf, adminCSRF string) probe {
	p := probe{surface: "console", method: http.MethodGet, header: map[string]string{}}
	if g.chance(15) {
		p.header["HX-Request"] = "true"
	}
	// value, when set, gives a field's plausible value for this form.
	var value func(field string) (string, bool)
	formWith := func(csrf string, fields ...string) {
		v := url.Values{"_csrf": {csrf}}
		wrong := -1
		if g.chance(60) {
			wrong = g.r.IntN(len(fields))
		}
		for i, f := range fields {
			switch {
			case i == wrong:
				v.Set(f, g.text())
			case g.chance(80):
				if value != nil {
					if s, ok := value(f); ok {
						v.Set(f, s)
						continue
					}
				}
				v.Set(f, g.formValue(f))
			}
		}
		p.method, p.contentType, p.body = http.MethodPost, "application/x-www-form-urlencoded", []byte(v.Encode())
	}
	form := func(fields ...string) { formWith(csrf, fields...) }
	// pickID is one of ids or an id that is not one, never text that could
	// read as the id of a row the other probes use.
	pickID := func(ids []int64) string {
		if g.chance(10) {
			return g.pick("0", "abc", "99999999")
		}
		return strconv.FormatInt(ids[g.r.IntN(len(ids))], 10)
	}
	switch n := g.r.IntN(120); {
	case n < 12:
		p.kind, p.path = "facts", "/facts"+g.query("scope", "durability", "category", "status", "q", "entity", "before")
	case n < 20:
		p.kind, p.path = "decisions", "/decisions"+g.query("scope", "entity", "lock", "q", "before")
	case n < 27:
		p.kind, p.path = "audit", "/audit"+g.query("actor", "action", "target_type", "target_id", "scope", "since", "until", "before")
	case n < 32:
		p.kind, p.path = "working", "/working"+g.query("scope", "marker", "state", "before")
	case n < 36:
		p.kind, p.path = "review", "/review"+g.query("kind", "scope", "after")
	case n < 39:
		p.kind, p.path = "obligations", "/obligations"+g.query("scope")
	case n < 42:
		p.kind, p.path = "tombstones", "/tombstones"+g.query("scope", "reason", "before")
	case n < 45:
		p.kind, p.path = "rejections", "/consolidation/rejections"+g.query("scope", "run", "phase", "reason", "source", "before")
	case n < 47:
		p.kind, p.path = "consolidation", "/consolidation"+g.query("before")
	case n < 49:
		p.kind, p.path = "overview", "/"+g.query("scope")
	case n < 52:
		p.kind, p.path = "fact page", "/facts/"+g.id(g.facts)
	case n < 54:
		p.kind, p.path = "decision page", "/decisions/"+g.id(g.decisions)
	case n < 56:
		p.kind, p.path = "new decision", "/decisions/new"+g.query("scope")
	case n < 66:
		p.kind, p.path = "fact save", "/facts/"+g.id(g.facts)
		form("version", "content", "durability", "category", "confidence", "deadline", "reason")
		if g.chance(60) {
			p.body = append(p.body, "&version=1"...)
		}
	case n < 71:
		p.kind, p.path = "fact bulk", "/facts/bulk"
		form("action", "durability", "category", "reason", "return")
		p.body = append(p.body, ("&ids=" + url.QueryEscape(g.rawID(g.facts)))...)
	case n < 78:
		p.kind, p.path = "decision create", "/decisions"
		form("scope", "entity", "key", "decision", "alternatives", "reasoning", "decided_by", "decided_at", "do_not_reopen")
	case n < 84:
		p.kind, p.path = "decision save", "/decisions/"+g.id(g.decisions)
		form("version", "decision", "alternatives", "reasoning", "decided_by", "decided_at", "reason")
	case n < 88:
		p.kind, p.path = "decision lock", "/decisions/"+g.id(g.decisions)+g.pick("/reopen", "/relock")
		form("reason")
	case n < 94:
		p.kind, p.path = "review resolve", "/review/"+g.id(g.items)
		form("action", "reason", "category", "durability", "content", "key", "filter_kind", "filter_scope")
	case n < 100:
		p.kind, p.path = "working markers", "/working/markers"
		form("marker", "reason", "return")
		p.body = append(p.body, ("&ids=" + url.QueryEscape(g.rawID(g.nodes)))...)
	case n < 104:
		// Signed out, with the sign-in form's token; now and then a
		// User-Agent that is not UTF-8, or too long, which the session keeps
		// as text.
		p.kind, p.path, p.client = "sign in", "/login", "anonymous"
		p.header["Cookie"] = "tenure_login_csrf=" + robustLoginCSRF
		if g.chance(30) {
			p.header["User-Agent"] = g.pick("Mozilla/5.0 (caf\xe9) \xff\xfe", strings.Repeat("Gecko/é ", 200), "robust\x80\tagent")
		}
		value = func(f string) (string, bool) {
			switch f {
			case "email":
				return g.pick("reviewer@example.com", "nobody@example.com", "Admin@Example.com"), true
			case "password":
				return g.pick("wrong password, long enough", "short", password), true
			case "next":
				return g.pick("/facts", "//evil.example", "/decisions?q=x", ""), true
			}
			return "", false
		}
		formWith(robustLoginCSRF, "email", "password", "next")
	case n < 108:
		p.kind, p.path, p.client = "user create", "/users", "admin"
		value = func(f string) (string, bool) {
			switch f {
			case "email":
				return g.pick("new"+strconv.Itoa(g.r.IntN(50))+"@example.com", "target@example.com", "not an email"), true
			case "role":
				return g.pick("viewer", "reviewer", "admin", "writer"), true
			case "password", "confirm":
				return g.pick("a long enough secret", "short"), true
			}
			return "", false
		}
		formWith(adminCSRF, "email", "name", "role", "password", "confirm")
	case n < 110:
		p.kind, p.path, p.client = "user save", "/users/"+pickID(g.users), "admin"
		value = func(f string) (string, bool) {
			switch f {
			case "action":
				return g.pick("role", "disable", "enable"), true
			case "role":
				return g.pick("viewer", "reviewer", "admin"), true
			}
			return "", false
		}
		formWith(adminCSRF, "action", "role")
	case n < 114:
		p.kind, p.path, p.client = "token create", "/tokens", "admin"
		value = func(f string) (string, bool) {
			switch f {
			case "role":
				return g.pick("writer", "reader", "admin"), true
			case "expires_days":
				return g.pick("", "30", "0", "3651", "x"), true
			}
			return "", false
		}
		formWith(adminCSRF, "name", "scope", "role", "expires_days")
	case n < 115:
		p.kind, p.path, p.client = "token revoke", "/tokens/"+pickID(g.tokens)+"/revoke", "admin"
		formWith(adminCSRF, "note")
	case n < 117:
		p.kind, p.path = "tombstone restore", "/tombstones/"+pickID(g.tombstones)+"/restore"
		value = func(f string) (string, bool) {
			if f == "durable" {
				return g.pick("", "1"), true
			}
			return "", false
		}
		form("durable", "reason", "return")
	default:
		p.kind, p.path, p.client = "policy save", "/policies/"+pickID(g.policies), "admin"
		value = func(f string) (string, bool) {
			switch f {
			case "half_life":
				return g.pick("180", "1.5", "0", "-3", "1e9"), true
			case "unit":
				return g.pick("hours", "days", "years", "weeks"), true
			case "never":
				return g.pick("", "on"), true
			case "floor":
				return g.pick("0.1", "0.5", "1", "x"), true
			case "seen":
				return g.pick("", "yesterday", time.Now().UTC().Format(time.RFC3339Nano)), true
			}
			return "", false
		}
		formWith(adminCSRF, "half_life", "unit", "never", "floor", "reason", "seen")
	}
	return p
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// lockedBuffer is a log sink safe for concurrent requests.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
