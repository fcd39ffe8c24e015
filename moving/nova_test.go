package moving

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/memory"
)

var novaNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// novaSource makes an empty database, creates NOVA's tables in it with
// schema and fills them with rows; it returns the database's URL.
func novaSource(t *testing.T, schema string, rows ...string) string {
	t.Helper()
	url := pgtest.NewEmptyURL(t)
	exec(t, pgtest.Connect(t, url), append([]string{schema}, rows...)...)
	return url
}

// tenure is a fresh Tenure database and its store, at novaNow.
func tenure(t *testing.T) (*pgxpool.Pool, *memory.Store) {
	t.Helper()
	pool := pgtest.NewPool(t)
	return pool, memory.NewStore(pool, memory.Options{Now: func() time.Time { return novaNow },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// importNova reads the NOVA database at url and imports it into scope.
func importNova(t *testing.T, store *memory.Store, url, scope string, dryRun bool) (NovaReport, error) {
	t.Helper()
	ctx := context.Background()
	n, err := ReadNova(ctx, url, scope)
	if err != nil {
		t.Fatalf("ReadNova: %v", err)
	}
	defer n.Close()
	return n.Import(ctx, store, memory.System(memory.SourceImport), memory.ImportOptions{DryRun: dryRun})
}

// NOVA after its two-axis migration: durability and category beside the
// legacy data_type it kept.
const novaTwoAxis = `
CREATE TABLE entities (id serial PRIMARY KEY, name text NOT NULL, type text NOT NULL DEFAULT 'person');
CREATE TABLE entity_facts (
    id bigserial PRIMARY KEY,
    entity_id integer NOT NULL REFERENCES entities (id),
    key text NOT NULL,
    value text NOT NULL,
    data jsonb NOT NULL DEFAULT '{}',
    source text,
    confidence double precision,
    learned_at timestamptz NOT NULL DEFAULT now(),
    last_confirmed_at timestamptz,
    confirmation_count integer NOT NULL DEFAULT 1,
    data_type text,
    durability text,
    category text)`

func TestNovaTwoAxis(t *testing.T) {
	url := novaSource(t, novaTwoAxis,
		`INSERT INTO entities (name, type) VALUES ('Ann', 'Person'), ('Acme Robotics', 'organization')`,
		`INSERT INTO entity_facts (entity_id, key, value, data, source, confidence, learned_at, last_confirmed_at, confirmation_count, durability, category) VALUES
		 (1, 'occupation', 'Ann is a nurse.', '{}', 'chat', 0.9, '2026-01-10T08:00:00Z', '2026-03-01T09:00:00Z', 3, 'permanent', 'identity'),
		 (1, 'drink', 'Ann prefers tea.', '{"strength": "weak"}', 'chat', 0.7, '2026-02-02T10:00:00Z', NULL, 1, 'long_term', 'preference'),
		 (1, 'mood', 'Ann is tired.', '{}', 'chat', 0.6, '2026-04-30T20:00:00Z', NULL, 1, 'ephemeral', 'mood'),
		 (2, 'ledger_db', 'Use PostgreSQL for the ledger.',
		  '{"decision": "Use PostgreSQL for the ledger.", "reasoning": "We already run its replication.", "alternatives": ["MySQL", "SQLite"], "decided_by": "cto"}',
		  'meeting', 0.95, '2026-03-15T14:00:00Z', NULL, 2, 'permanent', 'observation')`,
		// A row the migration left without axes: its data_type stands in.
		`INSERT INTO entity_facts (entity_id, key, value, learned_at, data_type) VALUES (1, 'home_city', 'Ann lives in Porto.', '2026-01-05T00:00:00Z', 'observation')`,
	)
	pool, store := tenure(t)

	// A dry run reports everything and writes nothing.
	report, err := importNova(t, store, url, "home", true)
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if !report.DryRun || report.Lines != 5 || report.Facts != 5 || report.Decisions != 1 || report.EntitiesCreated != 2 {
		t.Errorf("dry run report = %+v", report)
	}
	if n := count(t, pool, `SELECT (SELECT count(*) FROM entity_facts) + (SELECT count(*) FROM entities) + (SELECT count(*) FROM decisions)
		+ (SELECT count(*) FROM audit_log WHERE action = 'fact.import')`); n != 0 {
		t.Fatalf("a dry run wrote %d rows", n)
	}

	report, err = importNova(t, store, url, "home", false)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	want := map[string]int{
		memory.MappingAxes:                               3,
		"data.decision -> permanent/decision":            1,
		"data_type:observation -> long_term/observation": 1,
	}
	if report.DryRun || report.Lines != 5 || report.Facts != 5 || report.Decisions != 1 || report.EntitiesCreated != 2 ||
		report.Scope != "home" || report.Layout != "durability and category (data_type where both are empty)" ||
		!strings.HasSuffix(report.Source, "/"+databaseOf(t, url)) {
		t.Errorf("report = %+v", report)
	}
	if len(report.ByMapping) != len(want) {
		t.Errorf("by mapping = %v, want %v", report.ByMapping, want)
	}
	for k, v := range want {
		if report.ByMapping[k] != v {
			t.Errorf("by mapping[%s] = %d, want %d", k, report.ByMapping[k], v)
		}
	}

	// Every field lands where the mapping says.
	type fact struct {
		kind, content, durability, category, source string
		confidence                                  float64
		count                                       int32
		created, confirmed                          time.Time
	}
	got := map[string]fact{}
	rows, err := pool.Query(context.Background(), `
SELECT f.key, e.kind, f.content, f.durability, f.category, f.source, f.confidence, f.extraction_count, f.created_at, f.confirmed_at
FROM entity_facts f JOIN entities e ON e.id = f.entity_id WHERE f.scope = 'home' AND f.status = 'active'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var key string
		var f fact
		if err := rows.Scan(&key, &f.kind, &f.content, &f.durability, &f.category, &f.source, &f.confidence, &f.count, &f.created, &f.confirmed); err != nil {
			t.Fatal(err)
		}
		got[key] = f
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	wantFacts := map[string]fact{
		"occupation": {"person", "Ann is a nurse.", "permanent", "identity", "import", 0.9, 3, at("2026-01-10T08:00:00Z"), at("2026-03-01T09:00:00Z")},
		"drink":      {"person", "Ann prefers tea.", "long_term", "preference", "import", 0.7, 1, at("2026-02-02T10:00:00Z"), at("2026-02-02T10:00:00Z")},
		"mood":       {"person", "Ann is tired.", "ephemeral", "mood", "import", 0.6, 1, at("2026-04-30T20:00:00Z"), at("2026-04-30T20:00:00Z")},
		"ledger_db":  {"organization", "Use PostgreSQL for the ledger.", "permanent", "decision", "import", 0.95, 2, at("2026-03-15T14:00:00Z"), at("2026-03-15T14:00:00Z")},
		"home_city":  {"person", "Ann lives in Porto.", "long_term", "observation", "import", 0.8, 1, at("2026-01-05T00:00:00Z"), at("2026-01-05T00:00:00Z")},
	}
	for key, w := range wantFacts {
		g, ok := got[key]
		g.created, g.confirmed = g.created.UTC(), g.confirmed.UTC()
		if !ok || g != w {
			t.Errorf("fact %s = %+v, want %+v", key, g, w)
		}
	}

	var decision, reasoning, decidedBy string
	var alternatives []string
	var locked bool
	err = pool.QueryRow(context.Background(), `
SELECT d.decision, d.reasoning, d.alternatives, d.decided_by, d.do_not_reopen
FROM decisions d JOIN entities e ON e.id = d.entity_id WHERE d.scope = 'home' AND e.name = 'Acme Robotics' AND d.key = 'ledger_db'`).
		Scan(&decision, &reasoning, &alternatives, &decidedBy, &locked)
	if err != nil {
		t.Fatalf("the decision: %v", err)
	}
	if decision != "Use PostgreSQL for the ledger." || reasoning != "We already run its replication." ||
		!slices.Equal(alternatives, []string{"MySQL", "SQLite"}) || decidedBy != "cto" || !locked {
		t.Errorf("decision = %q, %q, %q, %q, locked %v", decision, reasoning, alternatives, decidedBy, locked)
	}
	if n := count(t, pool, `SELECT count(*) FROM audit_log WHERE action = 'fact.import' AND actor = 'system:import' AND scope = 'home'`); n != 1 {
		t.Errorf("%d import audit rows, want 1", n)
	}

	// Importing the same NOVA again writes nothing twice.
	report, err = importNova(t, store, url, "home", false)
	if err != nil || report.Facts != 0 || report.AlreadyPresent != 5 {
		t.Errorf("second import = %+v, %v; want all 5 already present", report, err)
	}
}

// NOVA before its two-axis migration: only data_type, no id on the facts,
// timestamps without a time zone, confidence as real.
const novaLegacy = `
CREATE TABLE entities (id integer PRIMARY KEY, name text NOT NULL, type text);
CREATE TABLE entity_facts (
    entity_id integer NOT NULL,
    key text NOT NULL,
    value text,
    data jsonb,
    source text,
    confidence real,
    learned_at timestamp,
    last_confirmed_at timestamp,
    confirmation_count integer,
    data_type text)`

func TestNovaLegacyDataType(t *testing.T) {
	url := novaSource(t, novaLegacy,
		`INSERT INTO entities VALUES (1, 'Ann', 'person'), (2, 'Platform team', NULL)`,
		`INSERT INTO entity_facts VALUES
		 (1, 'birthplace', 'Ann was born in Lisbon.', NULL, 'chat', 0.9, '2026-02-01 10:00:00', NULL, 0, 'permanent'),
		 (1, 'occupation', 'Ann is a nurse.', '{}', 'chat', 0.8, '2026-02-01 10:05:00', '2026-04-01 08:00:00', 4, 'identity'),
		 (1, 'drink', 'Ann prefers tea.', '{"note": "with lemon"}', 'chat', 0.5, '2026-02-03 09:00:00', NULL, 1, 'preference'),
		 (1, 'home_city', 'Ann lives in Porto.', NULL, 'chat', 0.7, '2026-02-04 09:00:00', NULL, 1, 'observation'),
		 (1, 'on_call', 'Ann is on call this week.', NULL, 'chat', 0.6, '2026-04-28 09:00:00', NULL, 1, 'temporal'),
		 (2, 'language', 'The platform team writes its services in Go.',
		  '{"decision": "Services are written in Go.", "reasoning": "One toolchain for the whole team.", "alternatives": "Rust", "do_not_reopen": false}',
		  'meeting', 0.9, '2026-03-01 16:00:00', NULL, 1, 'preference')`,
	)
	pool, store := tenure(t)
	report, err := importNova(t, store, url, "acme", false)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	want := map[string]int{
		"data_type:permanent -> permanent/identity":      1,
		"data_type:identity -> permanent/identity":       1,
		"data_type:preference -> long_term/preference":   1,
		"data_type:observation -> long_term/observation": 1,
		"data_type:temporal -> short_term/state":         1,
		"data.decision -> long_term/decision":            1,
	}
	if report.Lines != 6 || report.Facts != 6 || report.Decisions != 1 || report.Layout != "legacy data_type" || len(report.ByMapping) != len(want) {
		t.Errorf("report = %+v", report)
	}
	for k, v := range want {
		if report.ByMapping[k] != v {
			t.Errorf("by mapping[%s] = %d, want %d", k, report.ByMapping[k], v)
		}
	}
	if n := count(t, pool, `SELECT count(*) FROM entity_facts f JOIN entities e ON e.id = f.entity_id WHERE f.scope = 'acme' AND f.source = 'import'
		AND (e.name, f.key, f.durability, f.category) IN (('Ann', 'birthplace', 'permanent', 'identity'), ('Ann', 'occupation', 'permanent', 'identity'),
		('Ann', 'drink', 'long_term', 'preference'), ('Ann', 'home_city', 'long_term', 'observation'), ('Ann', 'on_call', 'short_term', 'state'),
		('Platform team', 'language', 'long_term', 'decision'))`); n != 6 {
		t.Errorf("%d facts with their mapped axes, want 6", n)
	}
	// Timestamps without a zone are UTC; a count of 0 confirmations is one sighting.
	if n := count(t, pool, `SELECT count(*) FROM entity_facts WHERE key = 'birthplace' AND created_at = '2026-02-01T10:00:00Z'
		AND confirmed_at = created_at AND extraction_count = 1`); n != 1 {
		t.Error("birthplace did not keep its time and a sighting count of 1")
	}
	if n := count(t, pool, `SELECT count(*) FROM entity_facts WHERE key = 'occupation' AND confirmed_at = '2026-04-01T08:00:00Z' AND extraction_count = 4`); n != 1 {
		t.Error("occupation did not keep its last confirmation and count")
	}
	// The decision: its own text, a single alternative, left open as NOVA said.
	if n := count(t, pool, `SELECT count(*) FROM decisions WHERE scope = 'acme' AND key = 'language' AND decision = 'Services are written in Go.'
		AND reasoning = 'One toolchain for the whole team.' AND alternatives = ARRAY['Rust'] AND NOT do_not_reopen`); n != 1 {
		t.Error("the decision did not land with its text, reasoning, alternative and open state")
	}
}

func TestNovaRefusesBadRows(t *testing.T) {
	url := novaSource(t, strings.Replace(novaLegacy, "entity_facts (", "entity_facts (id integer PRIMARY KEY, ", 1),
		`INSERT INTO entities VALUES (1, 'Ann', 'person')`,
		`INSERT INTO entity_facts (id, entity_id, key, value, data_type) VALUES
		 (10, 1, 'home_city', 'Ann lives in Porto.', 'observation'),
		 (11, 1, 'mood', 'Ann is moody.', 'episodic'),
		 (12, 1, 'Favourite Tea', 'Ann likes green tea.', 'preference'),
		 (13, 99, 'drink', 'Bob drinks coffee.', 'preference'),
		 (14, 1, 'age', 'Ann is 40.', NULL),
		 (15, 1, 'pick', 'Ann picked Go.', 'observation')`,
		`INSERT INTO entity_facts (id, entity_id, key, value, data, data_type) VALUES
		 (16, 1, 'stack', 'Ann chose Go.', '{"decision": "Go", "alternatives": [3]}', 'observation')`,
	)
	pool, store := tenure(t)
	for _, dryRun := range []bool{true, false} {
		_, err := importNova(t, store, url, "home", dryRun)
		refusal, ok := errors.AsType[*NovaRefusal](err)
		if !ok {
			t.Fatalf("dry run %v: err = %v, want a *NovaRefusal", dryRun, err)
		}
		if memory.ErrorCode(err) != memory.CodeInvalid {
			t.Errorf("the refusal unwraps to code %q, want invalid", memory.ErrorCode(err))
		}
		if !strings.Contains(refusal.Message, "the NOVA database") || !strings.Contains(refusal.Message, "5 rows are invalid") ||
			!strings.Contains(refusal.Message, "nothing was imported") {
			t.Errorf("message = %q", refusal.Message)
		}
		wantProblems := []NovaProblem{
			{Row: 2, Where: "entity_facts id 11", Field: "data_type", Message: `unknown data_type "episodic": allowed values are permanent, identity, preference, observation, temporal`},
			{Row: 3, Where: "entity_facts id 12", Field: "key"},
			{Row: 4, Where: "entity_facts id 13", Field: "entity_id", Message: "entity 99 is not in NOVA's entities table: every fact needs the entity it is about"},
			{Row: 5, Where: "entity_facts id 14", Field: "data_type", Message: "the row has no data_type: allowed values are permanent, identity, preference, observation, temporal"},
			{Row: 7, Where: "entity_facts id 16", Field: "data.alternatives[0]", Message: "data.alternatives must be a list of texts; item 0 is a number"},
		}
		if len(refusal.Problems) != len(wantProblems) {
			t.Fatalf("problems = %+v, want %d", refusal.Problems, len(wantProblems))
		}
		for i, w := range wantProblems {
			g := refusal.Problems[i]
			if g.Row != w.Row || g.Where != w.Where || g.Field != w.Field || (w.Message != "" && g.Message != w.Message) {
				t.Errorf("problem %d = %+v, want %+v", i, g, w)
			}
		}
		if !strings.Contains(refusal.Problems[1].Message, `invalid key "favourite tea"`) {
			t.Errorf("the key problem = %q, want the engine's message", refusal.Problems[1].Message)
		}
		if !strings.Contains(err.Error(), "\n  entity_facts id 11 (row 2): data_type: unknown data_type") {
			t.Errorf("error text = %q", err.Error())
		}
		if n := count(t, pool, `SELECT (SELECT count(*) FROM entity_facts) + (SELECT count(*) FROM entities)`); n != 0 {
			t.Fatalf("a refused import wrote %d rows", n)
		}
	}
}

func TestNovaReadsReadOnly(t *testing.T) {
	url := novaSource(t, novaTwoAxis, `INSERT INTO entities (name) VALUES ('Ann')`)
	n, err := ReadNova(context.Background(), url, "home")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	var readOnly, iso string
	if err := n.tx.QueryRow(context.Background(), `SELECT current_setting('transaction_read_only'), current_setting('transaction_isolation')`).Scan(&readOnly, &iso); err != nil {
		t.Fatal(err)
	}
	if readOnly != "on" || iso != "repeatable read" {
		t.Errorf("the NOVA transaction is read_only=%s, isolation %s; want on, repeatable read", readOnly, iso)
	}
	if n.Facts() != 0 {
		t.Errorf("Facts() = %d, want 0", n.Facts())
	}
	_, store := tenure(t)
	if _, err := n.Import(context.Background(), store, memory.System(memory.SourceImport), memory.ImportOptions{}); err == nil ||
		!strings.Contains(err.Error(), "holds no facts") {
		t.Errorf("import of an empty NOVA = %v, want it to say there is nothing to import", err)
	}
}

func TestNovaRefusesWhatIsNotNova(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, url, scope, want string
	}{
		{"no scope", pgtest.NewEmptyURL(t), " ", "name the Tenure scope NOVA's facts go to (--scope)"},
		{"bad scope", pgtest.NewEmptyURL(t), "Not A Scope", `invalid scope "Not A Scope"`},
		{"empty database", pgtest.NewEmptyURL(t), "home", "has no table entity_facts on its search path"},
		{"Tenure's own database", pgtest.NewURL(t), "home", "table entity_facts has no column value"},
		{"no axes", novaSourceURL(t, `CREATE TABLE entities (id int, name text); CREATE TABLE entity_facts (entity_id int, key text, value text)`),
			"home", "neither durability and category nor the legacy data_type"},
		{"no entities", novaSourceURL(t, `CREATE TABLE entity_facts (entity_id int, key text, value text, data_type text)`),
			"home", "has no table entities"},
		{"bad URL", "postgres://nova:s3cret-pw@127.0.0.1:notaport/nova", "home", "the NOVA database URL is not valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ReadNova(ctx, tt.url, tt.scope)
			if err == nil {
				n.Close()
				t.Fatalf("ReadNova succeeded, want an error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "s3cret-pw") {
				t.Errorf("error = %q, want it to contain %q (and no password)", err, tt.want)
			}
		})
	}
}

// databaseOf is the name of the database url connects to.
func databaseOf(t *testing.T, url string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Database
}

func novaSourceURL(t *testing.T, schema string) string {
	t.Helper()
	return novaSource(t, schema)
}

// TestNovaDataTypeAgreesWithFileImport: NOVA rows map as the legacy rows of
// an import file do (ReadNova maps through memory.MapLegacyDataType, the file
// import through api.MapDataType), and both refusals name the same values.
func TestNovaDataTypeAgreesWithFileImport(t *testing.T) {
	allowed := strings.Join(memory.LegacyDataTypes(), ", ")
	if _, _, err := api.MapDataType("episodic"); err == nil || !strings.Contains(err.Error(), allowed) {
		t.Errorf("the file import refuses data_type episodic with %v; want the values %s named", err, allowed)
	}
	for _, dt := range append(memory.LegacyDataTypes(), "episodic", "", " temporal ") {
		d, c, ok := memory.MapLegacyDataType(dt)
		fd, fc, err := api.MapDataType(dt)
		if ok != (err == nil) || d != fd || c != fc {
			t.Errorf("data_type %q maps to (%s, %s, %v) here and (%s, %s, %v) in the file import", dt, d, c, ok, fd, fc, err)
		}
	}
}
