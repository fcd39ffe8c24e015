package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
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
	// ObservedAt, on an import line, is when the fact's statement was
	// observed: the fact is confirmed then (it is confirmed_at's name on
	// every other write path; give either, or both the same). An export
	// writes confirmed_at.
	ObservedAt *time.Time `json:"observed_at,omitempty"`
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

// CountExport is how many facts Export would emit for scope (every scope
// when empty), for a progress report; it may differ by the facts written
// in between.
func (s *Store) CountExport(ctx context.Context, scope string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM entity_facts WHERE ($1::text = '' OR scope = $1::text)`, scope).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	return n, nil
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
	// MaxProblems is how many problems a refusal lists at most
	// (DefaultMaxProblems when 0); the message counts the others.
	MaxProblems int
	// Progress, when set, is called as the import goes: every few thousand
	// lines read, and at the start of each phase and batch.
	Progress func(ImportProgress)
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
	// IndexesRebuilt says the import wrote into a facts table smaller than
	// itself without its secondary indexes and built them again afterwards,
	// in its transaction (see ImportStream).
	IndexesRebuilt bool `json:"indexes_rebuilt"`
	// Forgotten is how many facts were past their forget date when they
	// were imported: each is written archived (ForgottenReason), kept and
	// restorable, never recited; ForgottenLines lists them by line (the
	// first MaxProblems), and a dry run lists them too.
	Forgotten      int               `json:"forgotten"`
	ForgottenLines []ImportForgotten `json:"forgotten_lines"`
}

// ImportForgotten is a fact an import brought in already past its forget
// date.
type ImportForgotten struct {
	Line int `json:"line"`
	// Where names the line as its source knows it (a NOVA row: entity_facts
	// id 42); empty for a file.
	Where       string    `json:"where,omitempty"`
	FactID      int64     `json:"fact_id"`
	Scope       string    `json:"scope"`
	Entity      string    `json:"entity"`
	Key         string    `json:"key"`
	Content     string    `json:"content"`
	ConfirmedAt time.Time `json:"confirmed_at"`
	ForgetAt    time.Time `json:"forget_at"`
}

// ImportProblem is what is wrong with one line of an import file.
type ImportProblem struct {
	Line    int    `json:"line"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// MappingAxes is the Mapping of a line that gives durability and category.
const MappingAxes = "durability+category"

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
	axes := "send durability and category, or the legacy data_type (" + strings.Join(LegacyDataTypes(), ", ") + ")"
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
	// The fact is confirmed when its statement was observed, which may not
	// lie ahead of the server's clock by more than a few minutes.
	confirmedField := "confirmed_at"
	if f.ObservedAt != nil {
		confirmedField = "observed_at"
		if f.ConfirmedAt != nil && !f.ConfirmedAt.Equal(*f.ObservedAt) {
			check(Invalidf("observed_at", "observed_at %s and confirmed_at %s disagree: a fact is confirmed when its statement was observed, so give one of them, or both the same",
				f.ObservedAt.UTC().Format(time.RFC3339Nano), f.ConfirmedAt.UTC().Format(time.RFC3339Nano)))
		}
		f.ConfirmedAt = f.ObservedAt
		f.ObservedAt = nil
	}
	// Without a confirmation time the fact was observed when it was created,
	// which is held to the same bound.
	if f.ConfirmedAt == nil && f.CreatedAt != nil {
		confirmedField = "created_at"
	}
	if at := firstTime(f.ConfirmedAt, f.CreatedAt); at != nil && !at.Before(MinTime) {
		check(CheckObservedAt(confirmedField, *at, now))
	}
	f.ConfirmedAt = firstTime(f.ConfirmedAt, f.CreatedAt, &now)
	f.CreatedAt = firstTime(f.CreatedAt, f.ConfirmedAt)
	f.UpdatedAt = firstTime(f.UpdatedAt, f.CreatedAt)
	f.ExpiresAt, f.Deadline, f.ArchivedAt = micro(f.ExpiresAt), micro(f.Deadline), micro(f.ArchivedAt)
	for _, t := range []struct {
		field string
		at    *time.Time
	}{
		{confirmedField, f.ConfirmedAt}, {"expires_at", f.ExpiresAt}, {"deadline", f.Deadline},
		{"archived_at", f.ArchivedAt}, {"created_at", f.CreatedAt}, {"updated_at", f.UpdatedAt},
	} {
		if t.at != nil {
			check(CheckTime(t.field, *t.at))
		}
	}

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
	check(CountBound.Check("extraction_count", float64(*f.ExtractionCount)))

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
		for _, t := range []struct {
			field string
			at    *time.Time
		}{
			{"decision.decided_at", d.DecidedAt}, {"decision.reopened_at", d.ReopenedAt},
			{"decision.created_at", d.CreatedAt}, {"decision.updated_at", d.UpdatedAt},
		} {
			if t.at != nil {
				check(CheckTime(t.field, *t.at))
			}
		}
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
