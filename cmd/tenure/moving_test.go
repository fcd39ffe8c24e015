package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// novaDatabase makes a NOVA database of the legacy layout with rows and
// returns its URL.
func novaDatabase(t *testing.T, rows ...string) string {
	t.Helper()
	url := pgtest.NewEmptyURL(t)
	pool := pgtest.Connect(t, url)
	for _, sql := range append([]string{
		`CREATE TABLE entities (id serial PRIMARY KEY, name text NOT NULL, type text)`,
		`CREATE TABLE entity_facts (id bigserial PRIMARY KEY, entity_id integer NOT NULL REFERENCES entities (id),
			key text NOT NULL, value text NOT NULL, data jsonb NOT NULL DEFAULT '{}', source text, confidence real,
			learned_at timestamptz NOT NULL DEFAULT '2026-03-01T00:00:00Z', last_confirmed_at timestamptz,
			confirmation_count integer NOT NULL DEFAULT 1, data_type text NOT NULL)`,
		`INSERT INTO entities (name, type) VALUES ('Ann', 'person')`,
	}, rows...) {
		if _, err := pool.Exec(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	return url
}

func TestImportFromNova(t *testing.T) {
	nova := novaDatabase(t, `INSERT INTO entity_facts (entity_id, key, value, data, data_type) VALUES
		(1, 'occupation', 'Ann is a nurse.', '{}', 'identity'),
		(1, 'drink', 'Ann prefers tea.', '{}', 'preference'),
		(1, 'shift', 'Ann works nights from now on.', '{"decision": "Ann works nights.", "reasoning": "The ward needs cover.", "alternatives": ["days"]}', 'temporal')`)
	url := pgtest.NewURL(t)
	env := map[string]string{"DATABASE_URL": url}

	out, stderr, err := runCmd(t, env, "", "import", "--from", "nova", "--scope", "home", nova, "--dry-run")
	if err != nil {
		t.Fatalf("dry run: %v (%s)", err, stderr)
	}
	if !strings.Contains(out, "Dry run, nothing written: would import 3 rows of NOVA database ") ||
		!strings.Contains(out, "(axes from legacy data_type) into scope home: 3 facts (1 decisions), 1 new entities, 0 already present.") ||
		!strings.Contains(out, "data_type:identity -> permanent/identity") || !strings.Contains(out, "data.decision -> short_term/decision") {
		t.Errorf("dry run report = %q", out)
	}
	if !strings.Contains(stderr, `"progress":"import"`) || !strings.Contains(stderr, `"unit":"rows"`) {
		t.Errorf("progress = %q, want JSON lines counting NOVA's rows", stderr)
	}
	if n := countRows(t, url, `SELECT count(*) FROM entity_facts`); n != 0 {
		t.Fatalf("a dry run wrote %d facts", n)
	}

	out, _, err = runCmd(t, env, "", "import", "--from", "nova", "--scope", "home", "--json", nova)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	var report struct {
		Lines, Facts, Decisions int
		Scope, Layout, Source   string
		ByMapping               map[string]int `json:"by_mapping"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("import --json = %q: %v", out, err)
	}
	if report.Lines != 3 || report.Facts != 3 || report.Decisions != 1 || report.Scope != "home" || report.Layout != "legacy data_type" ||
		report.Source == "" || report.ByMapping["data_type:preference -> long_term/preference"] != 1 {
		t.Errorf("report = %+v", report)
	}
	if n := countRows(t, url, `SELECT count(*) FROM decisions WHERE scope = 'home' AND decision = 'Ann works nights.'`); n != 1 {
		t.Errorf("%d decisions, want 1", n)
	}
}

func TestImportFromNovaRefusesBadRows(t *testing.T) {
	nova := novaDatabase(t, `INSERT INTO entity_facts (entity_id, key, value, data_type) VALUES
		(1, 'drink', 'Ann prefers tea.', 'preference'),
		(1, 'mood', 'Ann is moody.', 'episodic')`)
	url := pgtest.NewURL(t)
	env := map[string]string{"DATABASE_URL": url}
	_, _, err := runCmd(t, env, "", "import", "--from", "nova", "--scope", "home", nova)
	if err == nil || exitCode(err) != 1 {
		t.Fatalf("import of a bad NOVA = %v, want exit status 1", err)
	}
	for _, want := range []string{"1 row is invalid", "nothing was imported",
		"entity_facts id 2 (row 2): data_type: unknown data_type \"episodic\": allowed values are permanent, identity, preference, observation, temporal"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error = %q, want it to contain %q", err, want)
		}
	}
	out, _, err := runCmd(t, env, "", "import", "--from", "nova", "--scope", "home", "--json", nova)
	var refused struct {
		Error string
		Rows  []struct {
			Row          int
			Where, Field string
		}
	}
	if err == nil || json.Unmarshal([]byte(out), &refused) != nil || len(refused.Rows) != 1 ||
		refused.Rows[0].Where != "entity_facts id 2" || refused.Rows[0].Field != "data_type" {
		t.Errorf("import --json of a bad NOVA = %q, %v", out, err)
	}
	if n := countRows(t, url, `SELECT count(*) FROM entity_facts`); n != 0 {
		t.Errorf("a refused import wrote %d facts", n)
	}
	// What is not a NOVA database is named as such.
	_, _, err = runCmd(t, env, "", "import", "--from", "nova", "--scope", "home", url)
	if err == nil || !strings.Contains(err.Error(), "table entity_facts has no column value") {
		t.Errorf("import from Tenure's own database = %v", err)
	}
}

const mem0File = `{"results": [
  {"id": "m1", "memory": "Is a vegetarian", "user_id": "Alex", "metadata": null, "categories": ["food"],
   "created_at": "2026-03-02T09:15:22-08:00", "updated_at": null},
  {"id": "m2", "memory": "Prefers tea over coffee", "user_id": "Alex", "metadata": {"app": "chat"}, "categories": ["preferences"],
   "created_at": "2026-03-03T09:15:22-08:00", "updated_at": null},
  {"id": "m3", "memory": "Feeling stressed about the launch today", "user_id": "Alex", "metadata": null, "categories": null,
   "created_at": "2026-03-04T09:15:22-08:00", "updated_at": null},
  {"id": "m4", "memory": "Allergic to peanuts", "user_id": "sam", "metadata": null, "categories": ["health"],
   "created_at": "2026-03-05T09:15:22-08:00", "updated_at": null}
], "relations": []}`

func TestImportFromMem0(t *testing.T) {
	url := pgtest.NewURL(t)
	env := map[string]string{"DATABASE_URL": url}
	file := writeFile(t, "mem0.json", mem0File)

	out, _, err := runCmd(t, env, "", "import", "--from", "mem0", "--scope", "acme", "--dry-run", file)
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if !strings.Contains(out, "Dry run, nothing written: would push 4 Mem0 memories as working rows in 1 push.") {
		t.Errorf("dry run report = %q", out)
	}
	if n := countRows(t, url, `SELECT count(*) FROM memory_nodes`); n != 0 {
		t.Fatalf("a dry run wrote %d rows", n)
	}

	out, stderr, err := runCmd(t, env, "", "import", "--from", "mem0", "--scope", "acme", file)
	if err != nil {
		t.Fatalf("import: %v (%s)", err, stderr)
	}
	for _, want := range []string{
		"Pushed 4 Mem0 memories as working rows in 1 push; consolidation decides which become facts.",
		"Rows by scope:\n  acme                     4\n",
		"Rows by durability:\n  ephemeral                1\n  long_term                1\n  permanent                2\n",
		"Rows by category:\n  identity                 2\n  mood                     1\n  preference               1\n",
		"Rows by marker (durable: promoted by consolidation; transient and expired: refused, never a fact):\n  durable                  3\n  expired                  1\n",
		"Atomicity: one batch, one transaction: all or nothing.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report = %q\nwant it to contain %q", out, want)
		}
	}
	if !strings.Contains(stderr, `"phase":"push"`) {
		t.Errorf("progress = %q, want the push phase", stderr)
	}
	if n := countRows(t, url, `SELECT count(*) FROM memory_nodes WHERE scope = 'acme' AND properties->'metadata'->>'source' = 'mem0'`); n != 4 {
		t.Errorf("%d Mem0 rows in acme, want 4", n)
	}

	// One scope per user, from standard input, reported as JSON.
	out, _, err = runCmd(t, env, mem0File, "import", "--from", "mem0", "--scope-per-user", "--json", "-")
	if err != nil {
		t.Fatalf("import --scope-per-user: %v", err)
	}
	var report struct {
		Rows, Batches int
		Scopes        map[string]int
		ByMarker      map[string]int `json:"by_marker"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("import --json = %q: %v", out, err)
	}
	if report.Rows != 4 || report.Batches != 2 || report.Scopes["alex"] != 3 || report.Scopes["sam"] != 1 || report.ByMarker["expired"] != 1 {
		t.Errorf("report = %+v", report)
	}

	// Malformed input names the item and writes nothing.
	bad := writeFile(t, "bad.json", `{"results": [{"id": "m1", "memory": "Likes tea"}, {"id": "m2", "memory": ""}]}`)
	_, _, err = runCmd(t, env, "", "import", "--from", "mem0", "--scope", "other", bad)
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "results[1] (Mem0 id m2): the memory has no text") {
		t.Errorf("import of a bad Mem0 file = %v (exit %d)", err, exitCode(err))
	}
	if n := countRows(t, url, `SELECT count(*) FROM memory_nodes WHERE scope = 'other'`); n != 0 {
		t.Errorf("a refused file wrote %d rows", n)
	}
}

func TestImportFromUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"import", "--from", "zep", "x"}, `unknown --from "zep": allowed values are file, nova, mem0`},
		{[]string{"import", "--from", "nova", "--scope", "home"}, "--from nova needs the NOVA database's URL"},
		{[]string{"import", "--from", "nova", "postgres://nova@db/nova"}, "--from nova needs --scope, the Tenure scope NOVA's facts go to"},
		{[]string{"import", "--from", "nova", "--scope", "home", "--scope-per-user", "postgres://nova@db/nova"}, "--scope-per-user is for --from mem0"},
		{[]string{"import", "--from", "nova", "--scope", "Home Scope", "postgres://nova@db/nova"}, `--scope: invalid scope "Home Scope"`},
		{[]string{"import", "--from", "mem0", "m.json"}, "--from mem0 needs --scope, the Tenure scope the memories go to, or --scope-per-user"},
		{[]string{"import", "--from", "mem0", "--scope", "acme", "--scope-per-user", "m.json"}, "give --scope or --scope-per-user, not both"},
		{[]string{"import", "--from", "mem0", "--scope", "acme"}, "--from mem0 needs the file of Mem0's get_all JSON"},
		{[]string{"import", "--scope", "acme", "f.jsonl"}, "--scope and --scope-per-user are for --from nova and mem0"},
		{[]string{"import", "--from", "mem0", "--scope", "acme", "a.json", "b.json"}, "unexpected arguments: b.json"},
		{[]string{"import"}, "name the file to import"},
	}
	for _, tt := range tests {
		_, _, err := runCmd(t, nil, "", tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || exitCode(err) != 2 {
			t.Errorf("run(%q) = %v (exit %d), want a usage error containing %q", tt.args, err, exitCode(err), tt.want)
		}
		if err != nil && !strings.Contains(err.Error(), "tenure import --from nova --scope S") {
			t.Errorf("run(%q) = %v, want the usage of every source", tt.args, err)
		}
	}
}
