package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// exportAll exports fx's facts of scope as JSON Lines.
func exportAll(t *testing.T, fx *fixture, scope string) (string, []TransferFact) {
	t.Helper()
	var b bytes.Buffer
	var facts []TransferFact
	enc := json.NewEncoder(&b)
	n, err := fx.s.Export(context.Background(), scope, func(f TransferFact) error {
		facts = append(facts, f)
		return enc.Encode(f)
	})
	if err != nil || n != len(facts) {
		t.Fatalf("Export(%q) = %d, %v", scope, n, err)
	}
	return b.String(), facts
}

// linesOf turns exported facts back into import lines.
func linesOf(facts []TransferFact) []ImportLine {
	out := make([]ImportLine, len(facts))
	for i, f := range facts {
		out[i] = ImportLine{Line: i + 1, Mapping: MappingAxes, Fact: f}
	}
	return out
}

func TestExportImportRoundTrip(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	tired := fx.create(t, bot, NewFact{Scope: "home", Entity: "Ann", EntityKind: "person", Key: "mood", Content: "Ann is tired.", Category: CategoryMood})
	fx.advance(time.Hour)
	deadline := fxStart.Add(72 * time.Hour)
	fx.create(t, reviewer, NewFact{Scope: "home", Entity: "Ann", Key: "report", Content: "Ann must send the report.", Category: CategoryObligation, Deadline: &deadline})
	expires := fxStart.Add(24 * 30 * time.Hour)
	fx.create(t, bot, NewFact{Scope: "work", Entity: "Billing", Key: "status", Content: "Billing is migrating <to> \"v2\".", Category: CategoryState, ExpiresAt: &expires})
	d, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: "home", Entity: "Ann", Key: "editor", Decision: "Ann uses Helix.",
		Alternatives: []string{"Vim", "Emacs"}, Reasoning: "Modal editing without configuration."})
	if err != nil {
		t.Fatal(err)
	}
	fx.advance(time.Hour)
	if _, err := fx.s.ReopenDecision(ctx, reviewer, d.ID, "Trying Zed."); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: "work", Entity: "Billing", Key: "database",
		Decision: "Billing uses PostgreSQL.", Reasoning: "We run it already."}); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.s.ArchiveFacts(ctx, reviewer, []int64{tired.ID}, "It passed."); err != nil {
		t.Fatal(err)
	}

	first, facts := exportAll(t, fx, "")
	if len(facts) != 5 || facts[0].Status != "archived" || facts[0].ArchiveReason == nil || facts[3].Decision == nil ||
		facts[3].Decision.ReopenedAt == nil || *facts[3].Decision.DoNotReopen {
		t.Fatalf("export = %s", first)
	}
	if _, home := exportAll(t, fx, "home"); len(home) != 3 {
		t.Errorf("Export(home) = %d facts, want 3", len(home))
	}

	// The file goes through JSON, as it would on disk.
	var lines []ImportLine
	for i, raw := range strings.Split(strings.TrimSpace(first), "\n") {
		var f TransferFact
		if err := json.Unmarshal([]byte(raw), &f); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, ImportLine{Line: i + 1, Mapping: MappingAxes, Fact: f})
	}
	// Imported the same day, every fact comes back exactly.
	to := newFixture(t)
	to.advance(2 * time.Hour)
	report, err := to.s.Import(ctx, System(SourceImport), lines, ImportOptions{})
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	if report.Facts != 5 || report.Decisions != 2 || report.EntitiesCreated != 2 || report.ByMapping[MappingAxes] != 5 {
		t.Errorf("report = %+v", report)
	}
	if second, _ := exportAll(t, to, ""); second != first {
		t.Errorf("export after import differs:\n%s\nwant\n%s", second, first)
	}
	if n := to.count(t, `SELECT count(*) FROM entity_facts a WHERE forget_at IS DISTINCT FROM
		tenure_forget_at(durability, category, confidence, confirmed_at, expires_at, deadline)`); n != 0 {
		t.Errorf("%d facts with a stale forget_at", n)
	}
	if n := to.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.import' AND actor = 'system:import' AND scope IS NULL
		AND (after->>'facts')::int = 5`); n != 1 {
		t.Errorf("import audit rows = %d, want 1", n)
	}
	// The locked decision still locks after the import.
	if _, _, err := to.s.CreateFact(ctx, bot, NewFact{Scope: "work", Entity: "Billing", Key: "database", Content: "Billing uses MySQL."}); ErrorCode(err) != CodeDecisionLocked {
		t.Errorf("write on an imported locked decision = %v, want decision_locked", err)
	}

	// Imported six weeks later, the short-term state is past its forget
	// date: it is written archived, with the reason, and the report lists it
	// by line. The obligation (due three days after it was written) is past
	// its forget date too, but overdue: it is held active, as decay holds
	// it, until a person settles it. Everything else comes back as it was.
	later := newFixture(t)
	later.advance(1000 * time.Hour)
	report, err = later.s.Import(ctx, System(SourceImport), lines, ImportOptions{})
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	if report.Facts != 5 || report.Forgotten != 1 || len(report.ForgottenLines) != 1 ||
		report.ForgottenLines[0].Line != 3 || report.ForgottenLines[0].ForgetAt.After(later.clock()) {
		t.Errorf("report = %+v, want line 3 reported forgotten", report)
	}
	if n := later.count(t, `SELECT count(*) FROM entity_facts WHERE status = 'archived' AND archive_reason = $1`, ForgottenReason); n != 1 {
		t.Errorf("facts archived as forgotten before the import = %d, want 1", n)
	}
	if n := later.count(t, `SELECT count(*) FROM entity_facts WHERE status = 'active' AND category = 'obligation'
		AND content = 'Ann must send the report.' AND forget_at < $1`, later.clock()); n != 1 {
		t.Errorf("overdue obligations held active after the import = %d, want 1", n)
	}
	if n := later.count(t, `SELECT count(*) FROM audit_log WHERE action = 'fact.archive' AND actor = 'system:import'`); n != 1 {
		t.Errorf("audit rows of the archived imports = %d, want 1", n)
	}
	if _, err := later.s.Decay(ctx, System("decay")); err != nil {
		t.Fatal(err)
	}
	if n := later.count(t, `SELECT count(*) FROM entity_facts WHERE archive_reason = 'decayed'`); n != 0 {
		t.Errorf("%d imported facts archived by the decay job afterwards, want none", n)
	}
}

func TestImportRefusesTheWholeFile(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	good := TransferFact{Scope: "home", Entity: "Ann", Content: "Ann likes tea.", Durability: "long_term", Category: "preference"}
	bad := func(mut func(*TransferFact)) TransferFact {
		f := good
		mut(&f)
		return f
	}
	lines := []ImportLine{
		{Line: 1, Fact: good},
		{Line: 2, Err: Invalidf("data_type", "unknown data_type %q", "episodic")},
		{Line: 4, Fact: bad(func(f *TransferFact) { f.Category = CategoryDecision })},
		{Line: 5, Fact: bad(func(f *TransferFact) { f.Status = "archived" })},
		{Line: 6, Fact: bad(func(f *TransferFact) { f.Scope = "work" })},
		{Line: 7, Fact: bad(func(f *TransferFact) { f.EntityKind = "person" })},
		{Line: 8, Fact: bad(func(f *TransferFact) { f.EntityKind = "robot" })},
		{Line: 9, Fact: bad(func(f *TransferFact) { f.Decision = &TransferDecision{Decision: "x"} })},
		{Line: 10, Fact: bad(func(f *TransferFact) {
			f.Key, f.Category = "editor", CategoryDecision
			f.Decision = &TransferDecision{Decision: "Helix.", ReopenedAt: &fxStart}
		})},
	}
	_, err := fx.s.Import(ctx, Token("agent"), lines, ImportOptions{Scope: "home"})
	ie := AsError(err)
	if ie == nil || len(ie.Problems) == 0 {
		t.Fatalf("Import = %v, want a refusal naming the bad lines", err)
	}
	want := map[int]string{
		2:  "unknown data_type",
		4:  "a fact of category decision needs its decision",
		5:  "archived_at is required for an archived fact",
		6:  "this token may only import facts of scope home, not work",
		8:  "entity Ann of scope home is a person on line 7 and a robot here",
		9:  "decision is set on a fact of category preference",
		10: "a reopened decision needs the reason",
	}
	got := map[int]string{}
	for _, p := range ie.Problems {
		got[p.Line] += p.Field + ": " + p.Message + "\n"
	}
	for line, msg := range want {
		if !strings.Contains(got[line], msg) {
			t.Errorf("line %d problems = %q, want %q", line, got[line], msg)
		}
	}
	if len(got) != len(want) {
		t.Errorf("problems on lines %v, want exactly %d lines", got, len(want))
	}
	if !strings.Contains(ie.Message, "7 lines are invalid") || ErrorCode(err) != CodeInvalid {
		t.Errorf("summary = %q, code %q", ie.Message, ErrorCode(err))
	}
	if n := fx.count(t, `SELECT count(*) FROM entity_facts`) + fx.count(t, `SELECT count(*) FROM entities`); n != 0 {
		t.Errorf("a refused file wrote %d rows", n)
	}
	if _, err := fx.s.Import(ctx, System("import"), nil, ImportOptions{}); ErrorCode(err) != CodeInvalid || !strings.Contains(err.Error(), "holds no facts") {
		t.Errorf("Import(no lines) = %v", err)
	}
}

func TestImportDefaultsAndDryRun(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	lines := []ImportLine{{Line: 3, Mapping: "data_type:temporal", Fact: TransferFact{
		Scope: " home ", Entity: "Ann", Content: " Ann is on call. ", Durability: "short_term", Category: "state"}}}
	report, err := fx.s.Import(ctx, System("import"), lines, ImportOptions{DryRun: true})
	if err != nil || !report.DryRun || report.Facts != 1 || report.EntitiesCreated != 1 || report.ByMapping["data_type:temporal"] != 1 {
		t.Fatalf("dry run = %+v, %v", report, err)
	}
	if n := fx.count(t, `SELECT count(*) FROM entity_facts`) + fx.count(t, `SELECT count(*) FROM entities`) + fx.count(t, `SELECT count(*) FROM audit_log`); n != 0 {
		t.Fatalf("a dry run wrote %d rows", n)
	}
	if _, err := fx.s.Import(ctx, System("import"), lines, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	_, facts := exportAll(t, fx, "")
	f := facts[0]
	if f.Scope != "home" || f.Content != "Ann is on call." || f.EntityKind != "thing" || *f.Confidence != 0.8 || *f.Importance != 0.5 ||
		f.Status != "active" || f.Source != SourceImport || *f.ExtractionCount != 1 || !f.CreatedAt.Equal(fxStart) || !f.ConfirmedAt.Equal(fxStart) {
		t.Errorf("imported legacy fact = %+v, want the defaults", f)
	}
}

func TestImportRespectsLockedDecisions(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	d, err := fx.s.RecordDecision(ctx, reviewer, NewDecision{Scope: "work", Entity: "Billing", Key: "database",
		Decision: "Billing uses PostgreSQL.", Reasoning: "We run it already."})
	if err != nil {
		t.Fatal(err)
	}
	lines := linesOf([]TransferFact{
		{Scope: "work", Entity: "Billing", Key: "queue", Content: "Billing uses SQS.", Durability: "long_term", Category: "observation"},
		{Scope: "work", Entity: "Billing", Key: "database", Content: "Billing uses MySQL.", Durability: "long_term", Category: "observation"},
	})
	_, err = fx.s.Import(ctx, System("import"), lines, ImportOptions{})
	ie := AsError(err)
	if ie == nil || len(ie.Problems) != 1 || ie.Problems[0].Line != 2 ||
		!strings.Contains(ie.Problems[0].Message, "decision_locked: decision "+itoa(d.ID)) || !strings.Contains(ie.Problems[0].Message, "We run it already.") {
		t.Fatalf("Import over a locked decision = %v, want line 2 refused with the decision and its reasoning", err)
	}
	if n := fx.count(t, `SELECT count(*) FROM entity_facts`); n != 1 {
		t.Errorf("%d facts after a refused import, want the decision's only", n)
	}
	// The decision's own line, exported and imported again, is already there.
	_, facts := exportAll(t, fx, "")
	report, err := fx.s.Import(ctx, System("import"), linesOf(facts), ImportOptions{})
	if err != nil || report.AlreadyPresent != 1 || report.Facts != 0 {
		t.Errorf("re-import of the decision = %+v, %v; want it already present", report, err)
	}
}
