package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// This file is the engine side of export and import: a fact per
// JSON line, with every field needed to restore it exactly, and its decision
// when it is one. The statements are plain SQL rather than generated
// queries: they move whole files in set-based batches, with explicit ids and
// timestamps that no other writer may set.

// TransferFact is one line of an export file and of an import file: a fact
// with every field needed to restore it exactly, and its decision if it is
// one. Ids are not carried: the database that imports gives new ones, in
// the order of the file. An export sets every field; an import line needs
// only scope, entity, content and the two axes, and the others default.
type TransferFact struct {
	Scope           string            `json:"scope"`
	Entity          string            `json:"entity"`
	EntityKind      string            `json:"entity_kind"`
	Key             string            `json:"key"`
	Content         string            `json:"content"`
	Durability      string            `json:"durability"`
	Category        string            `json:"category"`
	Confidence      *float64          `json:"confidence"`
	Importance      *float64          `json:"importance"`
	ConfirmedAt     *time.Time        `json:"confirmed_at"`
	ExpiresAt       *time.Time        `json:"expires_at"`
	Deadline        *time.Time        `json:"deadline"`
	Status          string            `json:"status"`
	ArchivedAt      *time.Time        `json:"archived_at"`
	ArchiveReason   *string           `json:"archive_reason"`
	Source          string            `json:"source"`
	ExtractionCount *int32            `json:"extraction_count"`
	CreatedAt       *time.Time        `json:"created_at"`
	UpdatedAt       *time.Time        `json:"updated_at"`
	Decision        *TransferDecision `json:"decision,omitempty"`
}

// TransferDecision is the decision of a fact of category decision.
type TransferDecision struct {
	Decision     string     `json:"decision"`
	Alternatives []string   `json:"alternatives"`
	Reasoning    string     `json:"reasoning"`
	DecidedBy    string     `json:"decided_by"`
	DecidedAt    *time.Time `json:"decided_at"`
	DoNotReopen  *bool      `json:"do_not_reopen"`
	ReopenedAt   *time.Time `json:"reopened_at"`
	ReopenedBy   *string    `json:"reopened_by"`
	ReopenReason *string    `json:"reopen_reason"`
	CreatedAt    *time.Time `json:"created_at"`
	UpdatedAt    *time.Time `json:"updated_at"`
}

// exportBatch is how many facts one round trip of an export reads.
const exportBatch = 1000

const exportSQL = `
SELECT f.id, f.scope, e.name, e.kind, f.key, f.content, f.durability, f.category,
    f.confidence, f.importance, f.confirmed_at, f.expires_at, f.deadline, f.status,
    f.archived_at, f.archive_reason, f.source, f.extraction_count, f.created_at, f.updated_at,
    d.id, d.decision, d.alternatives, d.reasoning, d.decided_by, d.decided_at, d.do_not_reopen,
    d.reopened_at, d.reopened_by, d.reopen_reason, d.created_at, d.updated_at
FROM entity_facts f
JOIN entities e ON e.id = f.entity_id
LEFT JOIN decisions d ON d.fact_id = f.id
WHERE ($1::text = '' OR f.scope = $1::text) AND f.id > $2::bigint
ORDER BY f.id
LIMIT $3::int`

// Export calls emit with every fact of scope (every scope when empty), in
// the order of their ids, archived ones included, and returns how many it
// emitted. It reads one snapshot in batches, never the whole table at once.
func (s *Store) Export(ctx context.Context, scope string, emit func(TransferFact) error) (int, error) {
	if scope != "" {
		if _, err := ParseScope(scope); err != nil {
			return 0, err
		}
	}
	n := 0
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var after int64
		for {
			rows, err := tx.Query(ctx, exportSQL, scope, after, exportBatch)
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			batch, err := pgx.CollectRows(rows, scanExported)
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			for _, r := range batch {
				if err := emit(r.fact); err != nil {
					return err
				}
				n++
			}
			if len(batch) < exportBatch {
				return nil
			}
			after = batch[len(batch)-1].id
		}
	})
	return n, err
}

type exportedRow struct {
	id   int64
	fact TransferFact
}

func scanExported(row pgx.CollectableRow) (exportedRow, error) {
	var r exportedRow
	f := &r.fact
	var confidence, importance float64
	var confirmed, created, updated time.Time
	var count int32
	var d struct {
		id                   *int64
		decision, reasoning  *string
		decidedBy            *string
		alternatives         []string
		decidedAt            *time.Time
		doNotReopen          *bool
		reopenedAt           *time.Time
		reopenedBy, reason   *string
		createdAt, updatedAt *time.Time
	}
	err := row.Scan(&r.id, &f.Scope, &f.Entity, &f.EntityKind, &f.Key, &f.Content, &f.Durability, &f.Category,
		&confidence, &importance, &confirmed, &f.ExpiresAt, &f.Deadline, &f.Status,
		&f.ArchivedAt, &f.ArchiveReason, &f.Source, &count, &created, &updated,
		&d.id, &d.decision, &d.alternatives, &d.reasoning, &d.decidedBy, &d.decidedAt, &d.doNotReopen,
		&d.reopenedAt, &d.reopenedBy, &d.reason, &d.createdAt, &d.updatedAt)
	if err != nil {
		return r, err
	}
	f.Confidence, f.Importance, f.ExtractionCount = &confidence, &importance, &count
	f.ConfirmedAt, f.CreatedAt, f.UpdatedAt = utc(&confirmed), utc(&created), utc(&updated)
	f.ExpiresAt, f.Deadline, f.ArchivedAt = utc(f.ExpiresAt), utc(f.Deadline), utc(f.ArchivedAt)
	if d.id != nil {
		alts := d.alternatives
		if alts == nil {
			alts = []string{}
		}
		f.Decision = &TransferDecision{
			Decision: *d.decision, Alternatives: alts, Reasoning: *d.reasoning, DecidedBy: *d.decidedBy,
			DecidedAt: utc(d.decidedAt), DoNotReopen: d.doNotReopen, ReopenedAt: utc(d.reopenedAt),
			ReopenedBy: d.reopenedBy, ReopenReason: d.reason, CreatedAt: utc(d.createdAt), UpdatedAt: utc(d.updatedAt),
		}
	}
	return r, nil
}

// utc is t in UTC, so that an export reads the same whatever the server's
// time zone.
func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// ImportLine is one line of an import file, as the reader of the file's
// format found it.
type ImportLine struct {
	Line int // 1-based, in the file
	// Mapping says how the line gave its axes, for the report:
	// durability+category, or data_type:<value> for a legacy row.
	Mapping string
	Fact    TransferFact
	// Err is why the line could not be read (not JSON, an unknown field, an
	// unknown data_type); a *Error names its field. Fact is then ignored.
	Err error
}

// ImportOptions say how to import.
type ImportOptions struct {
	// DryRun validates everything, the checks against the database
	// included, and reports what would be written, writing nothing.
	DryRun bool
	// Scope, when set, is the only scope the lines may name (an API token's).
	Scope string
}

// ImportReport counts what an import wrote (or, in a dry run, would write).
type ImportReport struct {
	DryRun bool `json:"dry_run"`
	// Lines is how many lines the file holds, blank lines aside.
	Lines int `json:"lines"`
	// Facts is how many facts were written, decisions included; Decisions
	// how many of them are decisions.
	Facts     int `json:"facts"`
	Decisions int `json:"decisions"`
	// EntitiesCreated is how many entities did not exist yet.
	EntitiesCreated int `json:"entities_created"`
	// AlreadyPresent is how many lines name a fact the database already
	// holds (same scope, entity, key, content and created_at): they are not
	// written twice, so importing a file again changes nothing.
	AlreadyPresent int `json:"already_present"`
	// Superseded is how many live facts the import archived because a newer
	// fact on the same key replaced them (imported facts among them).
	Superseded int `json:"superseded"`
	// Merged is how many facts were archived as exact duplicates of a live
	// fact (an imported one, or the live one it repeats).
	Merged int `json:"merged"`
	// ByMapping counts the lines by how they gave their axes.
	ByMapping map[string]int `json:"by_mapping"`
}

// ImportProblem is what is wrong with one line of an import file.
type ImportProblem struct {
	Line    int    `json:"line"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// MappingAxes is the Mapping of a line that gives durability and category.
const MappingAxes = "durability+category"

// Import writes the facts of lines, with their decisions, in one
// transaction, keeping their timestamps, status and source exactly
// (forget_at is computed as for any fact). Every line is validated first;
// if any is bad, the whole file is refused with an *Error (CodeInvalid) whose Problems name every
// bad line, and nothing is written. A line may not write on the scope,
// entity and key of a decision already locked in the database:
// such lines are bad lines too. Entities are created when missing; a line
// that names a fact the database already holds is counted, not written
// again. One audit row records an import that writes anything. A dry run
// does all of it in a transaction it rolls back (the fact ids it took from
// the sequence stay used).
func (s *Store) Import(ctx context.Context, actor Actor, lines []ImportLine, opts ImportOptions) (ImportReport, error) {
	report := ImportReport{DryRun: opts.DryRun, Lines: len(lines), ByMapping: map[string]int{}}
	if len(lines) == 0 {
		return report, Invalidf("", "the file holds no facts: each line must be one JSON object, as tenure export writes them")
	}
	now := s.Now()
	var problems []ImportProblem
	facts := make([]TransferFact, 0, len(lines))
	lineOf := make([]int, 0, len(lines))
	kinds := map[[2]string]struct {
		kind string
		line int
	}{}
	for _, l := range lines {
		if l.Err != nil {
			problems = append(problems, problemOf(l.Line, l.Err))
			continue
		}
		f, kindGiven, errs := prepareImport(l.Fact, now)
		if opts.Scope != "" && f.Scope != "" && f.Scope != opts.Scope {
			errs = append(errs, Invalidf("scope", "this token may only import facts of scope %s, not %s", opts.Scope, f.Scope))
		}
		if kindGiven && len(errs) == 0 {
			k := [2]string{f.Scope, f.Entity}
			if prev, ok := kinds[k]; ok && prev.kind != f.EntityKind {
				errs = append(errs, Invalidf("entity_kind", "entity %s of scope %s is a %s on line %d and a %s here: give one kind",
					f.Entity, f.Scope, prev.kind, prev.line, f.EntityKind))
			} else if !ok {
				kinds[k] = struct {
					kind string
					line int
				}{f.EntityKind, l.Line}
			}
		}
		for _, err := range errs {
			problems = append(problems, problemOf(l.Line, err))
		}
		if len(errs) == 0 {
			facts = append(facts, f)
			lineOf = append(lineOf, l.Line)
			report.ByMapping[cmpOr(l.Mapping, MappingAxes)]++
		}
	}
	if len(problems) > 0 {
		return report, importRefused(problems)
	}
	// A line without a kind takes the one another line gives its entity.
	for i := range facts {
		if k, ok := kinds[[2]string{facts[i].Scope, facts[i].Entity}]; ok {
			facts[i].EntityKind = k.kind
		}
	}

	errDryRun := errors.New("dry run")
	err := s.tx(ctx, func(q *queries.Queries, tx pgx.Tx) error {
		present, err := presentFacts(ctx, tx, facts)
		if err != nil {
			return err
		}
		var write []TransferFact
		var writeLines []int
		for i, f := range facts {
			if present[i] {
				report.AlreadyPresent++
				continue
			}
			write = append(write, f)
			writeLines = append(writeLines, lineOf[i])
		}
		if problems, err := lockedLines(ctx, tx, write, writeLines); err != nil {
			return err
		} else if len(problems) > 0 {
			return importRefused(problems)
		}
		if len(write) == 0 {
			return nil
		}
		entityIDs, created, err := upsertEntities(ctx, tx, write, now)
		if err != nil {
			return err
		}
		report.EntitiesCreated = created
		ids, err := allocateFactIDs(ctx, tx, len(write))
		if err != nil {
			return err
		}
		for start := 0; start < len(write); start += exportBatch {
			end := min(start+exportBatch, len(write))
			if err := insertFacts(ctx, tx, write[start:end], ids[start:end], entityIDs); err != nil {
				return err
			}
		}
		for _, f := range write {
			if f.Decision != nil {
				report.Decisions++
			}
		}
		report.Facts = len(write)
		if err := insertDecisions(ctx, tx, write, ids, entityIDs); err != nil {
			return err
		}
		// An imported fact that repeats a live one word for word merges
		// into the older of the two, as consolidation merges duplicates.
		merged, err := q.MergeDuplicatesOf(ctx, queries.MergeDuplicatesOfParams{Ids: ids, Now: now})
		if err != nil {
			return fmt.Errorf("merge duplicates: %w", err)
		}
		report.Merged = len(merged)
		if len(merged) > 0 {
			facts, into := make([]int64, len(merged)), make([]int64, len(merged))
			for i, m := range merged {
				facts[i], into[i] = m.ID, m.Survivor
			}
			if err := s.audit(ctx, q, auditEntry{
				actor: actor, action: "fact.merge", targetType: "facts", targetID: strconv.FormatInt(facts[0], 10),
				after:  map[string]any{"status": "archived", "facts": facts, "merged_into": into},
				reason: "imported facts that repeat live ones word for word",
			}); err != nil {
				return err
			}
		}
		// Imported facts take part in supersession like any other write:
		// an imported state older than the live one on its key is archived,
		// a newer one archives the live one.
		superseded, err := s.supersede(ctx, q, actor, now, ids)
		if err != nil {
			return err
		}
		report.Superseded = len(superseded)
		scopes := map[string]bool{}
		for _, f := range write {
			scopes[f.Scope] = true
		}
		scope := ""
		if len(scopes) == 1 {
			scope = write[0].Scope
		}
		if err := s.audit(ctx, q, auditEntry{
			actor: actor, action: "fact.import", targetType: "fact", targetID: strconv.FormatInt(ids[0], 10), scope: scope,
			after: map[string]any{"lines": report.Lines, "facts": report.Facts, "decisions": report.Decisions,
				"entities_created": report.EntitiesCreated, "already_present": report.AlreadyPresent,
				"by_mapping": report.ByMapping, "first_id": ids[0], "last_id": ids[len(ids)-1]},
		}); err != nil {
			return err
		}
		if opts.DryRun {
			return errDryRun
		}
		return nil
	})
	if errors.Is(err, errDryRun) {
		err = nil
	}
	if err != nil {
		if e := AsError(err); e != nil && e.Problems != nil {
			return report, e
		}
		return report, fmt.Errorf("import: %w", err)
	}
	return report, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// problemOf turns a line's error into its problem.
func problemOf(line int, err error) ImportProblem {
	var e *Error
	if errors.As(err, &e) {
		return ImportProblem{Line: line, Field: e.Field, Message: e.Message}
	}
	return ImportProblem{Line: line, Message: err.Error()}
}

// prepareImport validates one line's fact and fills its defaults; it
// returns every problem of the line, one per field. kindGiven says whether
// the line named its entity's kind.
func prepareImport(f TransferFact, now time.Time) (TransferFact, bool, []error) {
	// Text the store cannot keep (not UTF-8, a NUL, a control character),
	// in any field, decision included, is the line's one problem.
	if err := CheckFields(f); err != nil {
		return f, false, []error{err}
	}
	var errs []error
	check := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	required := func(field, value, what string) bool {
		if strings.TrimSpace(value) == "" {
			errs = append(errs, Invalidf(field, "%s is required: %s", field, what))
			return false
		}
		return true
	}
	f.Scope = strings.TrimSpace(f.Scope)
	if required("scope", f.Scope, "name the scope the fact belongs to") {
		_, err := ParseScope(f.Scope)
		check(err)
	}
	f.Entity = strings.TrimSpace(f.Entity)
	if required("entity", f.Entity, "name who or what the fact is about") {
		_, err := parseEntity(f.Entity)
		check(err)
	}
	kindGiven := f.EntityKind != ""
	var err error
	if f.EntityKind, err = parseEntityKind(f.EntityKind); err != nil {
		check(err)
	}
	f.Key = strings.TrimSpace(f.Key)
	if _, err := ParseKey(f.Key); err != nil {
		check(err)
	}
	if required("content", f.Content, "write what is known") {
		f.Content, err = parseContent("content", f.Content)
		check(err)
	}
	axes := "send durability and category, or the legacy data_type (" + strings.Join([]string{"permanent", "identity", "preference", "observation", "temporal"}, ", ") + ")"
	if required("durability", f.Durability, axes) {
		_, err := ParseDurability(f.Durability)
		check(err)
	}
	if required("category", f.Category, axes) {
		_, err := ParseCategory(f.Category)
		check(err)
	}
	if f.Confidence == nil {
		f.Confidence = pointerTo(defaultFactConfidence)
	}
	check(parseUnit("confidence", *f.Confidence))
	if f.Importance == nil {
		f.Importance = pointerTo(defaultImportance)
	}
	check(parseUnit("importance", *f.Importance))

	// Times: a legacy row may give none; the instant of the import stands in.
	f.ConfirmedAt = firstTime(f.ConfirmedAt, f.CreatedAt, &now)
	f.CreatedAt = firstTime(f.CreatedAt, f.ConfirmedAt)
	f.UpdatedAt = firstTime(f.UpdatedAt, f.CreatedAt)
	f.ExpiresAt, f.Deadline, f.ArchivedAt = micro(f.ExpiresAt), micro(f.Deadline), micro(f.ArchivedAt)

	if f.Status == "" {
		f.Status = string(StatusActive)
	}
	if _, err := ParseStatus(f.Status); err != nil {
		check(err)
	} else if f.Status == string(StatusArchived) && f.ArchivedAt == nil {
		check(Invalidf("archived_at", "archived_at is required for an archived fact: give the time it was archived"))
	} else if f.Status == string(StatusActive) && f.ArchivedAt != nil {
		check(Invalidf("archived_at", "archived_at is set on an active fact: an active fact has none (or set status archived)"))
	}
	if f.ArchiveReason != nil && utf8.RuneCountInString(*f.ArchiveReason) > maxReason {
		check(Invalidf("archive_reason", "the archive reason is %d characters long: at most %d are allowed", utf8.RuneCountInString(*f.ArchiveReason), maxReason))
	}
	if f.Source == "" {
		f.Source = SourceImport
	}
	if _, err := ParseSource(f.Source); err != nil {
		check(err)
	}
	if f.ExtractionCount == nil {
		f.ExtractionCount = pointerTo(int32(1))
	}
	if *f.ExtractionCount < 1 {
		check(Invalidf("extraction_count", "extraction_count %d is out of range: a fact has been seen at least once", *f.ExtractionCount))
	}

	switch {
	case f.Category == CategoryDecision && f.Decision == nil:
		check(Invalidf("decision", "a fact of category decision needs its decision: an object with decision, alternatives, reasoning, decided_by, decided_at and do_not_reopen"))
	case f.Category != CategoryDecision && f.Decision != nil && f.Category != "":
		check(Invalidf("decision", "decision is set on a fact of category %s: decisions are facts of category decision", f.Category))
	case f.Decision != nil:
		d := *f.Decision
		if f.Key == "" {
			check(Invalidf("key", "a decision needs a key, the predicate it settles (such as database): it is what the decision locks"))
		}
		if strings.TrimSpace(d.Decision) == "" {
			check(Invalidf("decision.decision", "decision.decision is required: say what was decided"))
		} else if d.Decision, err = parseContent("decision", d.Decision); err != nil {
			check(prefixField(err, "decision"))
		}
		if d.Alternatives == nil {
			d.Alternatives = []string{}
		}
		if len(d.Alternatives) > maxAlternatives {
			check(Invalidf("decision.alternatives", "%d alternatives: at most %d are allowed", len(d.Alternatives), maxAlternatives))
		}
		for i, a := range d.Alternatives {
			if strings.TrimSpace(a) == "" || utf8.RuneCountInString(a) > maxAlternative {
				check(Invalidf(fmt.Sprintf("decision.alternatives[%d]", i), "an alternative must be 1 to %d characters", maxAlternative))
			}
		}
		if utf8.RuneCountInString(d.Reasoning) > maxContent {
			check(Invalidf("decision.reasoning", "the reasoning is %d characters long: at most %d are allowed", utf8.RuneCountInString(d.Reasoning), maxContent))
		}
		if utf8.RuneCountInString(d.DecidedBy) > maxDecidedBy {
			check(Invalidf("decision.decided_by", "decided_by is %d characters long: at most %d are allowed", utf8.RuneCountInString(d.DecidedBy), maxDecidedBy))
		}
		d.DecidedAt = firstTime(d.DecidedAt, f.CreatedAt)
		if d.DoNotReopen == nil {
			d.DoNotReopen = pointerTo(true)
		}
		d.ReopenedAt = micro(d.ReopenedAt)
		if d.ReopenedAt != nil && (d.ReopenReason == nil || strings.TrimSpace(*d.ReopenReason) == "") {
			check(Invalidf("decision.reopen_reason", "a reopened decision needs the reason it was reopened"))
		}
		d.CreatedAt = firstTime(d.CreatedAt, f.CreatedAt)
		d.UpdatedAt = firstTime(d.UpdatedAt, d.CreatedAt)
		f.Decision = &d
	}
	return f, kindGiven, errs
}

// firstTime is the first of ts that is set, in UTC, to the microsecond as
// PostgreSQL keeps it.
func firstTime(ts ...*time.Time) *time.Time {
	for _, t := range ts {
		if t != nil {
			return micro(t)
		}
	}
	return nil
}

func micro(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Microsecond)
	return &u
}

// presentFacts reports which facts the database already holds: same scope,
// entity, key, content and created_at.
func presentFacts(ctx context.Context, tx pgx.Tx, facts []TransferFact) ([]bool, error) {
	n := len(facts)
	scopes, entities, keys, contents := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	created := make([]time.Time, n)
	for i, f := range facts {
		scopes[i], entities[i], keys[i], contents[i], created[i] = f.Scope, f.Entity, f.Key, f.Content, *f.CreatedAt
	}
	rows, err := tx.Query(ctx, `
SELECT u.i
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])
    WITH ORDINALITY AS u(scope, entity, key, content, created_at, i)
JOIN entities e ON e.scope = u.scope AND e.name = u.entity
WHERE EXISTS (
    SELECT 1 FROM entity_facts f
    WHERE f.scope = u.scope AND f.entity_id = e.id AND f.key = u.key
      AND f.content = u.content AND f.created_at = u.created_at)`,
		scopes, entities, keys, contents, created)
	if err != nil {
		return nil, fmt.Errorf("import: present facts: %w", err)
	}
	ords, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("import: present facts: %w", err)
	}
	out := make([]bool, n)
	for _, i := range ords {
		out[i-1] = true
	}
	return out, nil
}

// lockedLines names the facts that would write on the scope, entity and key
// of a decision the database already holds locked.
func lockedLines(ctx context.Context, tx pgx.Tx, facts []TransferFact, lines []int) ([]ImportProblem, error) {
	if len(facts) == 0 {
		return nil, nil
	}
	n := len(facts)
	scopes, entities, keys := make([]string, n), make([]string, n), make([]string, n)
	for i, f := range facts {
		scopes[i], entities[i], keys[i] = f.Scope, f.Entity, f.Key
	}
	rows, err := tx.Query(ctx, `
SELECT u.i, d.id, d.decision, d.reasoning
FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS u(scope, entity, key, i)
JOIN entities e ON e.scope = u.scope AND e.name = u.entity
JOIN decisions d ON d.scope = u.scope AND d.entity_id = e.id AND d.key = u.key AND d.do_not_reopen
WHERE u.key <> ''
ORDER BY u.i`, scopes, entities, keys)
	if err != nil {
		return nil, fmt.Errorf("import: locked decisions: %w", err)
	}
	var out []ImportProblem
	var i, id int64
	var decision, reasoning string
	_, err = pgx.ForEachRow(rows, []any{&i, &id, &decision, &reasoning}, func() error {
		f := facts[i-1]
		out = append(out, ImportProblem{Line: lines[i-1], Field: "key", Message: fmt.Sprintf(
			"decision_locked: decision %d (%q) settles key %s of %s in scope %s and may not be reopened by an import; reasoning: %s",
			id, decision, f.Key, f.Entity, f.Scope, reasoning)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("import: locked decisions: %w", err)
	}
	return out, nil
}

// upsertEntities creates the entities the facts name that do not exist
// yet, and returns the id of every one by scope and name, and how many it
// created. An existing entity keeps its kind.
func upsertEntities(ctx context.Context, tx pgx.Tx, facts []TransferFact, now time.Time) (map[[2]string]int64, int, error) {
	seen := map[[2]string]bool{}
	var scopes, names, kinds []string
	for _, f := range facts {
		k := [2]string{f.Scope, f.Entity}
		if seen[k] {
			continue
		}
		seen[k] = true
		scopes, names, kinds = append(scopes, f.Scope), append(names, f.Entity), append(kinds, f.EntityKind)
	}
	tag, err := tx.Exec(ctx, `
INSERT INTO entities (scope, name, kind, created_at, updated_at)
SELECT u.scope, u.name, u.kind, $4::timestamptz, $4::timestamptz
FROM unnest($1::text[], $2::text[], $3::text[]) AS u(scope, name, kind)
ON CONFLICT (scope, name) DO NOTHING`, scopes, names, kinds, now)
	if err != nil {
		return nil, 0, fmt.Errorf("import: entities: %w", err)
	}
	rows, err := tx.Query(ctx, `
SELECT e.id, e.scope, e.name
FROM entities e
JOIN unnest($1::text[], $2::text[]) AS u(scope, name) ON e.scope = u.scope AND e.name = u.name`, scopes, names)
	if err != nil {
		return nil, 0, fmt.Errorf("import: entities: %w", err)
	}
	ids := make(map[[2]string]int64, len(scopes))
	var id int64
	var scope, name string
	if _, err := pgx.ForEachRow(rows, []any{&id, &scope, &name}, func() error {
		ids[[2]string{scope, name}] = id
		return nil
	}); err != nil {
		return nil, 0, fmt.Errorf("import: entities: %w", err)
	}
	return ids, int(tag.RowsAffected()), nil
}

// allocateFactIDs takes n ids from the facts' sequence, in increasing
// order, so that the facts keep the order of the file and each decision
// knows its fact's id before anything is inserted.
func allocateFactIDs(ctx context.Context, tx pgx.Tx, n int) ([]int64, error) {
	rows, err := tx.Query(ctx, `SELECT nextval(pg_get_serial_sequence('entity_facts', 'id')) FROM generate_series(1, $1::int)`, n)
	if err != nil {
		return nil, fmt.Errorf("import: fact ids: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("import: fact ids: %w", err)
	}
	slices.Sort(ids)
	return ids, nil
}

// insertFacts inserts one batch of facts with the given ids.
func insertFacts(ctx context.Context, tx pgx.Tx, facts []TransferFact, ids []int64, entityIDs map[[2]string]int64) error {
	n := len(facts)
	var (
		scopes, keys, contents, durabilities = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		categories, statuses, sources        = make([]string, n), make([]string, n), make([]string, n)
		entities                             = make([]int64, n)
		confidences, importances             = make([]float64, n), make([]float64, n)
		confirmed, created, updated          = make([]time.Time, n), make([]time.Time, n), make([]time.Time, n)
		expires, deadlines, archived         = make([]*time.Time, n), make([]*time.Time, n), make([]*time.Time, n)
		reasons                              = make([]*string, n)
		counts                               = make([]int32, n)
	)
	for i, f := range facts {
		scopes[i], keys[i], contents[i], durabilities[i] = f.Scope, f.Key, f.Content, f.Durability
		categories[i], statuses[i], sources[i] = f.Category, f.Status, f.Source
		entities[i] = entityIDs[[2]string{f.Scope, f.Entity}]
		confidences[i], importances[i] = *f.Confidence, *f.Importance
		confirmed[i], created[i], updated[i] = *f.ConfirmedAt, *f.CreatedAt, *f.UpdatedAt
		expires[i], deadlines[i], archived[i] = f.ExpiresAt, f.Deadline, f.ArchivedAt
		reasons[i], counts[i] = f.ArchiveReason, *f.ExtractionCount
	}
	_, err := tx.Exec(ctx, `
INSERT INTO entity_facts (id, scope, entity_id, key, content, durability, category, confidence, importance,
    confirmed_at, expires_at, deadline, status, archived_at, archive_reason, source, extraction_count,
    created_at, updated_at)
OVERRIDING SYSTEM VALUE
SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[],
    $8::float8[], $9::float8[], $10::timestamptz[], $11::timestamptz[], $12::timestamptz[], $13::text[],
    $14::timestamptz[], $15::text[], $16::text[], $17::int[], $18::timestamptz[], $19::timestamptz[])`,
		ids, scopes, entities, keys, contents, durabilities, categories, confidences, importances,
		confirmed, expires, deadlines, statuses, archived, reasons, sources, counts, created, updated)
	if err != nil {
		return fmt.Errorf("import: facts: %w", err)
	}
	return nil
}

// insertDecisions inserts the decisions of facts, whose ids are ids.
func insertDecisions(ctx context.Context, tx pgx.Tx, facts []TransferFact, ids []int64, entityIDs map[[2]string]int64) error {
	var (
		factIDs, entities                     []int64
		scopes, keys, decisions, alternatives []string
		reasonings, decidedBy                 []string
		decidedAt, created, updated           []time.Time
		locked                                []bool
		reopenedAt                            []*time.Time
		reopenedBy, reopenReasons             []*string
	)
	for i, f := range facts {
		d := f.Decision
		if d == nil {
			continue
		}
		alts, err := json.Marshal(d.Alternatives)
		if err != nil {
			return fmt.Errorf("import: decisions: %w", err)
		}
		factIDs, entities = append(factIDs, ids[i]), append(entities, entityIDs[[2]string{f.Scope, f.Entity}])
		scopes, keys, decisions, alternatives = append(scopes, f.Scope), append(keys, f.Key), append(decisions, d.Decision), append(alternatives, string(alts))
		reasonings, decidedBy = append(reasonings, d.Reasoning), append(decidedBy, d.DecidedBy)
		decidedAt, created, updated = append(decidedAt, *d.DecidedAt), append(created, *d.CreatedAt), append(updated, *d.UpdatedAt)
		locked = append(locked, *d.DoNotReopen)
		reopenedAt, reopenedBy, reopenReasons = append(reopenedAt, d.ReopenedAt), append(reopenedBy, d.ReopenedBy), append(reopenReasons, d.ReopenReason)
	}
	if len(factIDs) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `
INSERT INTO decisions (fact_id, scope, entity_id, key, decision, alternatives, reasoning, decided_by,
    decided_at, do_not_reopen, reopened_at, reopened_by, reopen_reason, created_at, updated_at)
SELECT u.fact_id, u.scope, u.entity_id, u.key, u.decision,
    ARRAY(SELECT a.v FROM jsonb_array_elements_text(u.alternatives::jsonb) WITH ORDINALITY AS a(v, n) ORDER BY a.n), u.reasoning, u.decided_by,
    u.decided_at, u.do_not_reopen, u.reopened_at, u.reopened_by, u.reopen_reason, u.created_at, u.updated_at
FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
    $9::timestamptz[], $10::bool[], $11::timestamptz[], $12::text[], $13::text[], $14::timestamptz[], $15::timestamptz[])
    WITH ORDINALITY AS u(fact_id, scope, entity_id, key, decision, alternatives, reasoning, decided_by,
        decided_at, do_not_reopen, reopened_at, reopened_by, reopen_reason, created_at, updated_at, i)
ORDER BY u.i`,
		factIDs, scopes, entities, keys, decisions, alternatives, reasonings, decidedBy,
		decidedAt, locked, reopenedAt, reopenedBy, reopenReasons, created, updated)
	if err != nil {
		return fmt.Errorf("import: decisions: %w", err)
	}
	return nil
}
