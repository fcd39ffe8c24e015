package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
	"github.com/tenurehq/tenure/replica"
)

// An import streams. Each line is read, checked in Go and, when good,
// copied (COPY) into a temporary staging table of the import's one
// transaction; nothing of the file is kept in memory but the first bad lines
// and a count per mapping. What needs the whole file (an entity given two
// kinds, facts already present, locked decisions) is then checked in SQL
// against the staging table, and the facts are written set-based from it.
// Any bad line rolls the transaction back, so a refused, failed or cancelled
// import leaves the database as it was; a dry run rolls back too.

// DefaultMaxProblems is how many problems a refusal lists when the options
// give no limit; the message says how many more there are.
const DefaultMaxProblems = 1000

// importBatch is how many imported facts one statement of the merge and
// supersession passes touches.
const importBatch = 20000

// progressEvery is how many lines are read between two progress reports.
const progressEvery = 10000

// ImportProgress is how far an import has come, as Progress reports it.
type ImportProgress struct {
	// Phase is read (lines streamed and checked), check (the checks
	// against the database), write (entities, facts, decisions), index
	// (when the import rebuilds the facts' indexes: Done of Total built),
	// merge and supersede (the facts written, in batches), then done.
	Phase string
	// Lines is how many lines were read, blank lines aside.
	Lines int
	// Done and Total count facts: in the write phase those to write, in
	// the merge and supersede phases those that may change (the facts
	// written that have a duplicate, or a rival on their key).
	Done, Total int
}

// The phases of an import.
const (
	ImportPhaseRead      = "read"
	ImportPhaseCheck     = "check"
	ImportPhaseWrite     = "write"
	ImportPhaseIndex     = "index"
	ImportPhaseMerge     = "merge"
	ImportPhaseSupersede = "supersede"
	ImportPhaseDone      = "done"
)

// Import imports lines held in memory: see ImportStream.
func (s *Store) Import(ctx context.Context, actor Actor, lines []ImportLine, opts ImportOptions) (ImportReport, error) {
	return s.ImportStream(ctx, actor, func(yield func(ImportLine, error) bool) {
		for _, l := range lines {
			if !yield(l, nil) {
				return
			}
		}
	}, opts)
}

// ImportStream writes the facts of lines, with their decisions, in one
// transaction, keeping their timestamps, status and source exactly
// (forget_at is computed as for any fact). Lines are read once, in order,
// and never held together in memory. If any line is bad, the whole file is
// refused with an *Error (CodeInvalid) whose Problems name the bad lines
// (the first MaxProblems problems; the message counts every bad line and
// says how many problems are not listed), and nothing is written. A line
// may not write on the scope, entity and key of a decision already locked
// in the database: such lines are bad lines too. Entities are created when
// missing, with the kind the first line giving one names; a line that names
// a fact the database already holds (same scope, entity, key, content and
// created_at) is counted, not written again. One audit row records an
// import that writes anything. A dry run does all of it in a transaction
// it rolls back (the fact ids it took from the sequence stay used). An
// error of the sequence (a file that cannot be read) or a cancelled ctx
// stops the import, and nothing is written.
func (s *Store) ImportStream(ctx context.Context, actor Actor, lines iter.Seq2[ImportLine, error], opts ImportOptions) (ImportReport, error) {
	defer replica.NoteWrite(ctx) // reads.go
	report := ImportReport{DryRun: opts.DryRun, ByMapping: map[string]int{}, ForgottenLines: []ImportForgotten{}}
	limit := opts.MaxProblems
	if limit <= 0 {
		limit = DefaultMaxProblems
	}
	progress := func(p ImportProgress) {
		if opts.Progress != nil {
			p.Lines = report.Lines
			opts.Progress(p)
		}
	}
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return report, fmt.Errorf("import: %w", err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = tx.Rollback(rctx)
	}()
	if _, err := tx.Exec(ctx, stagingSQL); err != nil {
		return report, fmt.Errorf("import: staging: %w", err)
	}

	next, stop := iter.Pull2(lines)
	defer stop()
	src := &importSource{ctx: ctx, next: next, now: s.Now(), opts: opts, limit: limit, report: &report, progress: progress}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"import_staging"}, stagingColumns, src); err != nil {
		switch {
		case src.err != nil:
			err = src.err
		case ctx.Err() != nil:
			// A cancel in the middle of the copy may surface as the closed
			// connection's error: say it was cancelled.
			err = ctx.Err()
		}
		return report, fmt.Errorf("import: %w", err)
	}
	if src.err != nil {
		return report, fmt.Errorf("import: %w", src.err)
	}
	progress(ImportProgress{Phase: ImportPhaseRead})
	if report.Lines == 0 {
		return report, Invalidf("", "the file holds no facts: each line must be one JSON object, as tenure export writes them")
	}

	progress(ImportProgress{Phase: ImportPhaseCheck})
	if _, err := tx.Exec(ctx, `ANALYZE import_staging`); err != nil {
		return report, fmt.Errorf("import: staging: %w", err)
	}
	kindProblems, kindTotal, err := entityKindProblems(ctx, tx, limit)
	if err != nil {
		return report, err
	}
	if src.badLines > 0 || kindTotal > 0 {
		return report, src.refusal(kindProblems, kindTotal)
	}
	staged := src.staged
	tag, err := tx.Exec(ctx, importRowsSQL)
	if err != nil {
		return report, fmt.Errorf("import: present facts: %w", err)
	}
	toWrite := int(tag.RowsAffected())
	if _, err := tx.Exec(ctx, `ANALYZE import_rows`); err != nil {
		return report, fmt.Errorf("import: %w", err)
	}
	report.AlreadyPresent = staged - toWrite
	locked, lockedTotal, err := lockedLines(ctx, tx, limit)
	if err != nil {
		return report, err
	}
	if lockedTotal > 0 {
		return report, importRefusal(locked, lockedTotal, lockedTotal-len(locked))
	}
	if toWrite == 0 {
		return report, commitOrDryRun(ctx, tx, opts)
	}

	progress(ImportProgress{Phase: ImportPhaseWrite, Total: toWrite})
	q := s.q.WithTx(tx)
	now := src.now
	if tag, err = tx.Exec(ctx, importEntitiesSQL, now); err != nil {
		return report, fmt.Errorf("import: entities: %w", err)
	}
	report.EntitiesCreated = int(tag.RowsAffected())
	rebuild, err := dropFactIndexes(ctx, tx, toWrite)
	if err != nil {
		return report, fmt.Errorf("import: %w", err)
	}
	report.IndexesRebuilt = len(rebuild) > 0
	if tag, err = tx.Exec(ctx, importFactsSQL); err != nil {
		return report, fmt.Errorf("import: facts: %w", err)
	}
	report.Facts = int(tag.RowsAffected())
	for i, def := range rebuild {
		progress(ImportProgress{Phase: ImportPhaseIndex, Done: i, Total: len(rebuild)})
		if _, err := tx.Exec(ctx, def); err != nil {
			return report, fmt.Errorf("import: rebuilding an index of entity_facts: %w", err)
		}
	}
	if tag, err = tx.Exec(ctx, importDecisionsSQL); err != nil {
		return report, fmt.Errorf("import: decisions: %w", err)
	}
	report.Decisions = int(tag.RowsAffected())
	var firstID, lastID int64
	if err := tx.QueryRow(ctx, `SELECT min(fact_id), max(fact_id) FROM import_rows`).Scan(&firstID, &lastID); err != nil {
		return report, fmt.Errorf("import: %w", err)
	}

	// An imported fact that repeats a live one word for word merges into
	// the older of the two, as consolidation merges duplicates. Batches
	// give the same result as one statement: every imported fact is
	// already written, and a group merged by one batch is left with its
	// survivor alone for the next.
	candidates, err := importCandidates(ctx, tx, mergeCandidatesSQL)
	if err != nil {
		return report, fmt.Errorf("import: merge candidates: %w", err)
	}
	progress(ImportProgress{Phase: ImportPhaseMerge, Total: candidates})
	err = importBatches(ctx, tx, func(ids []int64, done int) error {
		progress(ImportProgress{Phase: ImportPhaseMerge, Done: done, Total: candidates})
		merged, err := q.MergeDuplicatesOf(ctx, queries.MergeDuplicatesOfParams{Ids: ids, Now: now})
		if err != nil {
			return fmt.Errorf("merge duplicates: %w", err)
		}
		report.Merged += len(merged)
		if len(merged) == 0 {
			return nil
		}
		facts, into := make([]int64, len(merged)), make([]int64, len(merged))
		for i, m := range merged {
			facts[i], into[i] = m.ID, m.Survivor
		}
		return s.audit(ctx, q, auditEntry{
			actor: actor, action: "fact.merge", targetType: "facts", targetID: strconv.FormatInt(facts[0], 10),
			after:  map[string]any{"status": "archived", "facts": facts, "merged_into": into},
			reason: "imported facts that repeat live ones word for word",
		})
	})
	if err != nil {
		return report, fmt.Errorf("import: %w", err)
	}
	// Imported facts take part in supersession like any other write: an
	// imported state older than the live one on its key is archived, a
	// newer one archives the live one.
	candidates, err = importCandidates(ctx, tx, supersedeCandidatesSQL)
	if err != nil {
		return report, fmt.Errorf("import: supersession candidates: %w", err)
	}
	progress(ImportProgress{Phase: ImportPhaseSupersede, Total: candidates})
	err = importBatches(ctx, tx, func(ids []int64, done int) error {
		progress(ImportProgress{Phase: ImportPhaseSupersede, Done: done, Total: candidates})
		superseded, err := s.supersede(ctx, q, actor, now, ids)
		report.Superseded += len(superseded)
		return err
	})
	if err != nil {
		return report, fmt.Errorf("import: %w", err)
	}
	// A fact whose forget_at had passed before it was imported is written
	// archived, once it took part in supersession as what it was when it
	// was observed, and listed in the report line by line: nothing the
	// import brings in is archived afterwards without a word.
	if err := s.archiveForgotten(ctx, tx, q, actor, now, limit, &report); err != nil {
		return report, fmt.Errorf("import: %w", err)
	}
	scope := ""
	if err := tx.QueryRow(ctx, `SELECT CASE WHEN min(scope) = max(scope) THEN min(scope) ELSE '' END FROM import_rows`).Scan(&scope); err != nil {
		return report, fmt.Errorf("import: %w", err)
	}
	if err := s.audit(ctx, q, auditEntry{
		actor: actor, action: "fact.import", targetType: "fact", targetID: strconv.FormatInt(firstID, 10), scope: scope,
		after: map[string]any{"lines": report.Lines, "facts": report.Facts, "decisions": report.Decisions,
			"entities_created": report.EntitiesCreated, "already_present": report.AlreadyPresent,
			"by_mapping": report.ByMapping, "first_id": firstID, "last_id": lastID},
	}); err != nil {
		return report, fmt.Errorf("import: %w", err)
	}
	if err := commitOrDryRun(ctx, tx, opts); err != nil {
		return report, err
	}
	progress(ImportProgress{Phase: ImportPhaseDone, Done: toWrite, Total: toWrite})
	return report, nil
}

// ForgottenReason is the archive reason of an imported fact that was past
// its forget date when it was imported.
const ForgottenReason = "forgotten before it was imported: its forget_at had passed"

// archiveForgottenSQL archives the facts an import wrote that are active
// and past their forget_at (but overdue obligations, which decay holds until
// a person settles them), and returns each with its line.
const archiveForgottenSQL = `
WITH due AS (
    SELECT r.line, r.fact_id
    FROM import_rows r
    JOIN entity_facts f ON f.id = r.fact_id
    WHERE f.status = 'active' AND f.forget_at <= $1::timestamptz
      -- An overdue obligation is held, as decay holds it (ArchiveDueFacts).
      AND NOT (f.category = 'obligation' AND f.deadline IS NOT NULL AND f.deadline <= f.forget_at)
)
UPDATE entity_facts f
SET status = 'archived', archived_at = $1::timestamptz, archive_reason = $2::text,
    version = f.version + 1, updated_at = $1::timestamptz
FROM due
WHERE f.id = due.fact_id
RETURNING due.line, f.id, f.scope, (SELECT e.name FROM entities e WHERE e.id = f.entity_id), f.key, f.content,
    f.confirmed_at, f.forget_at`

// archiveForgotten archives the imported facts past their forget date,
// reports them (the first limit in detail) and audits them in one row.
func (s *Store) archiveForgotten(ctx context.Context, tx pgx.Tx, q *queries.Queries, actor Actor, now time.Time, limit int, report *ImportReport) error {
	rows, err := tx.Query(ctx, archiveForgottenSQL, now, ForgottenReason)
	if err != nil {
		return fmt.Errorf("forgotten facts: %w", err)
	}
	var all []ImportForgotten
	var f ImportForgotten
	if _, err := pgx.ForEachRow(rows, []any{&f.Line, &f.FactID, &f.Scope, &f.Entity, &f.Key, &f.Content, &f.ConfirmedAt, &f.ForgetAt}, func() error {
		f.ConfirmedAt, f.ForgetAt = f.ConfirmedAt.UTC(), f.ForgetAt.UTC()
		all = append(all, f)
		return nil
	}); err != nil {
		return fmt.Errorf("forgotten facts: %w", err)
	}
	if len(all) == 0 {
		return nil
	}
	slices.SortFunc(all, func(a, b ImportForgotten) int { return cmp.Compare(a.Line, b.Line) })
	report.Forgotten = len(all)
	report.ForgottenLines = all[:min(len(all), limit)]
	ids := make([]int64, len(all))
	for i, x := range all {
		ids[i] = x.FactID
	}
	return s.audit(ctx, q, auditEntry{
		actor: actor, action: "fact.archive", targetType: "facts", targetID: strconv.FormatInt(ids[0], 10),
		after:  map[string]any{"status": "archived", "archive_reason": ForgottenReason, "facts": ids},
		reason: "imported past their forget date",
	})
}

// bulkImportMin is the fewest facts an import must write before it
// considers rebuilding the facts' indexes rather than maintaining them.
var bulkImportMin = 50_000

// dropFactIndexes drops the secondary indexes of entity_facts when the
// import writes at least bulkImportMin facts and the table holds fewer than
// it writes (moving into a new install, or a small one): building an index
// once over every row costs a fraction of updating it row by row. It returns
// the statements that build them again, in the import's transaction after
// the facts are written, so that a failed or cancelled import leaves every
// index as it was. Meanwhile the facts table is locked: readers wait for the
// import to commit. Unique and primary-key indexes stay. No index is dropped
// (nil) otherwise.
func dropFactIndexes(ctx context.Context, tx pgx.Tx, toWrite int) ([]string, error) {
	if toWrite < bulkImportMin {
		return nil, nil
	}
	var present int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM entity_facts LIMIT $1) f`, toWrite).Scan(&present); err != nil {
		return nil, err
	}
	if present >= toWrite {
		return nil, nil
	}
	rows, err := tx.Query(ctx, `
SELECT c.relname::text, pg_get_indexdef(i.indexrelid)
FROM pg_index i
JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'entity_facts'::regclass AND NOT i.indisprimary AND NOT i.indisunique
  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
ORDER BY c.relname`)
	if err != nil {
		return nil, err
	}
	type index struct{ name, def string }
	indexes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (index, error) {
		var x index
		return x, r.Scan(&x.name, &x.def)
	})
	if err != nil {
		return nil, err
	}
	// The builds sort in memory rather than on disk where they can; the
	// setting ends with the transaction.
	if _, err := tx.Exec(ctx, `SET LOCAL maintenance_work_mem = '256MB'`); err != nil {
		return nil, err
	}
	defs := make([]string, len(indexes))
	for i, x := range indexes {
		if _, err := tx.Exec(ctx, `DROP INDEX `+pgx.Identifier{x.name}.Sanitize()); err != nil {
			return nil, err
		}
		defs[i] = x.def
	}
	return defs, nil
}

// commitOrDryRun commits the import, or leaves a dry run to the deferred
// rollback.
func commitOrDryRun(ctx context.Context, tx pgx.Tx, opts ImportOptions) error {
	if opts.DryRun {
		return nil
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	return nil
}

// importCandidates fills import_candidates with the ids of the facts
// written that the next pass may change, found set-based by sql: the pass
// over them alone does what it would do over every fact written.
func importCandidates(ctx context.Context, tx pgx.Tx, sql string) (int, error) {
	if _, err := tx.Exec(ctx, `DROP TABLE IF EXISTS import_candidates`); err != nil {
		return 0, err
	}
	tag, err := tx.Exec(ctx, `CREATE TEMP TABLE import_candidates ON COMMIT DROP AS `+sql)
	if err != nil {
		return 0, err
	}
	_, err = tx.Exec(ctx, `CREATE INDEX ON import_candidates (fact_id)`)
	return int(tag.RowsAffected()), err
}

// mergeCandidatesSQL selects the facts written that have an active
// duplicate (same entity, key and content ignoring case and outer space,
// neither a decision), the only ones MergeDuplicatesOf changes anything
// around.
const mergeCandidatesSQL = `
SELECT f.id AS fact_id
FROM import_rows r
JOIN entity_facts f ON f.id = r.fact_id
WHERE f.status = 'active' AND f.category <> 'decision'
  AND EXISTS (
    SELECT 1 FROM entity_facts g
    WHERE g.entity_id = f.entity_id AND g.key = f.key AND g.id <> f.id
      AND md5(lower(g.content)) = md5(lower(btrim(f.content))) AND lower(btrim(g.content)) = lower(btrim(f.content))
      AND g.status = 'active' AND g.category <> 'decision')`

// supersedeCandidatesSQL selects the facts written, active and of a
// superseding kind (or on a single-valued key), whose entity and key hold
// another such fact that says something else: SupersedeFacts archives
// nothing on a key whose active superseding facts all say the same. The
// single-valued keys are written into the statement: keys are lowercase
// letters, digits and '_'.
var supersedeCandidatesSQL = `
SELECT f.id AS fact_id
FROM import_rows r
JOIN entity_facts f ON f.id = r.fact_id
WHERE f.status = 'active' AND f.key <> ''
  AND (tenure_supersedes(f.category, f.durability) OR f.key = ANY('{` + strings.Join(singleKeys, ",") + `}'::text[]))
  AND EXISTS (
    SELECT 1 FROM entity_facts o
    WHERE o.entity_id = f.entity_id AND o.key = f.key AND o.id <> f.id AND o.status = 'active'
      AND (tenure_supersedes(o.category, o.durability) OR o.key = f.key AND f.key = ANY('{` + strings.Join(singleKeys, ",") + `}'::text[]))
      AND lower(btrim(o.content)) <> lower(btrim(f.content)))`

// importBatches calls fn with the ids in import_candidates, in increasing
// order, importBatch at a time, and how many came before.
func importBatches(ctx context.Context, tx pgx.Tx, fn func(ids []int64, done int) error) error {
	var after int64
	done := 0
	for {
		rows, err := tx.Query(ctx, `SELECT fact_id FROM import_candidates WHERE fact_id > $1 ORDER BY fact_id LIMIT $2`, after, importBatch)
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		if err := fn(ids, done); err != nil {
			return err
		}
		done += len(ids)
		after = ids[len(ids)-1]
	}
}

// stagingColumns are the columns an import copies, one row per good line.
var stagingColumns = []string{"line", "scope", "entity", "entity_kind", "kind_given", "key", "content",
	"durability", "category", "confidence", "importance", "confirmed_at", "expires_at", "deadline", "status",
	"archived_at", "archive_reason", "source", "extraction_count", "created_at", "updated_at",
	"d_decision", "d_alternatives", "d_reasoning", "d_decided_by", "d_decided_at", "d_do_not_reopen",
	"d_reopened_at", "d_reopened_by", "d_reopen_reason", "d_created_at", "d_updated_at"}

// stagingSQL creates the staging table of one import; it lives as long as
// the import's transaction. The d_ columns hold the line's decision, NULL
// when it has none.
const stagingSQL = `
CREATE TEMP TABLE import_staging (
    line int NOT NULL, scope text NOT NULL, entity text NOT NULL, entity_kind text NOT NULL,
    kind_given bool NOT NULL, key text NOT NULL, content text NOT NULL, durability text NOT NULL,
    category text NOT NULL, confidence float8 NOT NULL, importance float8 NOT NULL,
    confirmed_at timestamptz NOT NULL, expires_at timestamptz, deadline timestamptz, status text NOT NULL,
    archived_at timestamptz, archive_reason text, source text NOT NULL, extraction_count int NOT NULL,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
    d_decision text, d_alternatives text[], d_reasoning text, d_decided_by text, d_decided_at timestamptz,
    d_do_not_reopen bool, d_reopened_at timestamptz, d_reopened_by text, d_reopen_reason text,
    d_created_at timestamptz, d_updated_at timestamptz
) ON COMMIT DROP`

// importRowsSQL keeps the staged lines the database does not hold yet, in
// the order of the file, each with the id its fact will have: ids are
// taken in that order, so that the facts keep the order of the file.
const importRowsSQL = `
CREATE TEMP TABLE import_rows ON COMMIT DROP AS
SELECT nextval(pg_get_serial_sequence('entity_facts', 'id')) AS fact_id, s.*
FROM (
    SELECT s.* FROM import_staging s
    WHERE NOT EXISTS (
        SELECT 1 FROM entities e JOIN entity_facts f ON f.entity_id = e.id
        WHERE e.scope = s.scope AND e.name = s.entity AND f.scope = s.scope AND f.key = s.key
          AND f.content = s.content AND f.created_at = s.created_at)
    ORDER BY s.line
) s`

// importEntitiesSQL creates the missing entities, in the order the file
// first names them, each with the kind the first line giving one names.
// An existing entity keeps its kind.
const importEntitiesSQL = `
INSERT INTO entities (scope, name, kind, created_at, updated_at)
SELECT u.scope, u.entity, u.entity_kind, $1::timestamptz, $1::timestamptz
FROM (
    SELECT DISTINCT ON (r.scope, r.entity) r.scope, r.entity, r.entity_kind,
        min(r.line) OVER (PARTITION BY r.scope, r.entity) AS first_line
    FROM import_rows r
    ORDER BY r.scope, r.entity, r.kind_given DESC, r.line
) u
ORDER BY u.first_line
ON CONFLICT (scope, name) DO NOTHING`

const importFactsSQL = `
INSERT INTO entity_facts (id, scope, entity_id, key, content, durability, category, confidence, importance,
    confirmed_at, expires_at, deadline, status, archived_at, archive_reason, source, extraction_count,
    created_at, updated_at)
OVERRIDING SYSTEM VALUE
SELECT r.fact_id, r.scope, e.id, r.key, r.content, r.durability, r.category, r.confidence, r.importance,
    r.confirmed_at, r.expires_at, r.deadline, r.status, r.archived_at, r.archive_reason, r.source,
    r.extraction_count, r.created_at, r.updated_at
FROM import_rows r
JOIN entities e ON e.scope = r.scope AND e.name = r.entity`

const importDecisionsSQL = `
INSERT INTO decisions (fact_id, scope, entity_id, key, decision, alternatives, reasoning, decided_by,
    decided_at, do_not_reopen, reopened_at, reopened_by, reopen_reason, created_at, updated_at)
SELECT r.fact_id, r.scope, e.id, r.key, r.d_decision, r.d_alternatives, r.d_reasoning, r.d_decided_by,
    r.d_decided_at, r.d_do_not_reopen, r.d_reopened_at, r.d_reopened_by, r.d_reopen_reason,
    r.d_created_at, r.d_updated_at
FROM import_rows r
JOIN entities e ON e.scope = r.scope AND e.name = r.entity
WHERE r.d_decision IS NOT NULL
ORDER BY r.fact_id`

// entityKindProblems names the lines that give an entity another kind than
// the first line giving it one: the first limit of them, and how many
// there are.
func entityKindProblems(ctx context.Context, tx pgx.Tx, limit int) ([]ImportProblem, int, error) {
	rows, err := tx.Query(ctx, `
SELECT k.line, k.scope, k.entity, k.entity_kind, k.first_kind, k.first_line, (count(*) OVER ())::int
FROM (
    SELECT line, scope, entity, entity_kind,
        first_value(entity_kind) OVER w AS first_kind, first_value(line) OVER w AS first_line
    FROM import_staging
    WHERE kind_given
    WINDOW w AS (PARTITION BY scope, entity ORDER BY line)
) k
WHERE k.entity_kind <> k.first_kind
ORDER BY k.line
LIMIT $1`, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("import: entity kinds: %w", err)
	}
	var out []ImportProblem
	var line, firstLine, total int
	var scope, entity, kind, firstKind string
	_, err = pgx.ForEachRow(rows, []any{&line, &scope, &entity, &kind, &firstKind, &firstLine, &total}, func() error {
		out = append(out, ImportProblem{Line: line, Field: "entity_kind", Message: fmt.Sprintf(
			"entity %s of scope %s is a %s on line %d and a %s here: give one kind", entity, scope, firstKind, firstLine, kind)})
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("import: entity kinds: %w", err)
	}
	return out, total, nil
}

// lockedLines names the lines to write that would write on the scope,
// entity and key of a decision the database already holds locked: the
// first limit of them, and how many there are.
func lockedLines(ctx context.Context, tx pgx.Tx, limit int) ([]ImportProblem, int, error) {
	rows, err := tx.Query(ctx, `
SELECT r.line, d.id, d.decision, d.reasoning, r.scope, r.entity, r.key, (count(*) OVER ())::int
FROM import_rows r
JOIN entities e ON e.scope = r.scope AND e.name = r.entity
JOIN decisions d ON d.scope = r.scope AND d.entity_id = e.id AND d.key = r.key AND d.do_not_reopen
WHERE r.key <> ''
ORDER BY r.line
LIMIT $1`, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("import: locked decisions: %w", err)
	}
	var out []ImportProblem
	var line, total int
	var id int64
	var decision, reasoning, scope, entity, key string
	_, err = pgx.ForEachRow(rows, []any{&line, &id, &decision, &reasoning, &scope, &entity, &key, &total}, func() error {
		out = append(out, ImportProblem{Line: line, Field: "key", Message: fmt.Sprintf(
			"decision_locked: decision %d (%q) settles key %s of %s in scope %s and may not be reopened by an import; reasoning: %s",
			id, decision, key, entity, scope, reasoning)})
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("import: locked decisions: %w", err)
	}
	return out, total, nil
}

// importRefusal is the refusal of a whole import file: listed are the problems
// shown, badLines how many lines are bad, more how many problems are not
// listed.
func importRefusal(listed []ImportProblem, badLines, more int) *Error {
	e := importRefused(listed)
	if badLines == 1 {
		e.Message = "the file was refused and nothing was imported: 1 line is invalid"
	} else {
		e.Message = fmt.Sprintf("the file was refused and nothing was imported: %d lines are invalid", badLines)
	}
	if more > 0 {
		e.Message += fmt.Sprintf("; the first %d problems are listed, %d more are not", len(listed), more)
	}
	return e
}

// importSource streams the lines of an import into COPY: it checks each
// line, keeps the problems of bad ones (the first limit) and hands the
// good ones to the staging table.
type importSource struct {
	ctx      context.Context
	next     func() (ImportLine, error, bool)
	now      time.Time
	opts     ImportOptions
	limit    int
	report   *ImportReport
	progress func(ImportProgress)

	problems []ImportProblem
	more     int // problems found beyond limit
	badLines int
	staged   int
	row      []any
	err      error
}

func (src *importSource) Next() bool {
	for {
		l, err, ok := src.next()
		if !ok {
			return false
		}
		if err != nil {
			src.err = err
			return false
		}
		src.report.Lines++
		if src.report.Lines%progressEvery == 0 {
			if err := src.ctx.Err(); err != nil {
				src.err = err
				return false
			}
			src.progress(ImportProgress{Phase: ImportPhaseRead})
		}
		if l.Err != nil {
			src.problem(l.Line, []error{l.Err})
			continue
		}
		f, kindGiven, errs := prepareImport(l.Fact, src.now)
		if src.opts.Scope != "" && f.Scope != "" && f.Scope != src.opts.Scope {
			errs = append(errs, Invalidf("scope", "this token may only import facts of scope %s, not %s", src.opts.Scope, f.Scope))
		}
		if len(errs) > 0 {
			src.problem(l.Line, errs)
			continue
		}
		src.report.ByMapping[cmpOr(l.Mapping, MappingAxes)]++
		src.staged++
		src.row = stagingRow(src.row[:0], l.Line, f, kindGiven)
		return true
	}
}

func (src *importSource) Values() ([]any, error) { return src.row, nil }

func (src *importSource) Err() error { return src.err }

// problem records the problems of one bad line.
func (src *importSource) problem(line int, errs []error) {
	src.badLines++
	for _, err := range errs {
		if len(src.problems) < src.limit {
			src.problems = append(src.problems, problemOf(line, err))
		} else {
			src.more++
		}
	}
}

// refusal is the refusal of the file for the lines read bad and for the
// kind problems the database found, in the order of the file.
func (src *importSource) refusal(kind []ImportProblem, kindTotal int) *Error {
	merged := make([]ImportProblem, 0, min(src.limit, len(src.problems)+len(kind)))
	a, b := src.problems, kind
	for len(merged) < src.limit && (len(a) > 0 || len(b) > 0) {
		if len(b) == 0 || (len(a) > 0 && a[0].Line <= b[0].Line) {
			merged, a = append(merged, a[0]), a[1:]
		} else {
			merged, b = append(merged, b[0]), b[1:]
		}
	}
	total := len(src.problems) + src.more + kindTotal
	return importRefusal(merged, src.badLines+kindTotal, total-len(merged))
}

// stagingRow appends the staging columns of one good line to row.
func stagingRow(row []any, line int, f TransferFact, kindGiven bool) []any {
	row = append(row, int32(line), f.Scope, f.Entity, f.EntityKind, kindGiven, f.Key, f.Content,
		f.Durability, f.Category, *f.Confidence, *f.Importance, *f.ConfirmedAt, f.ExpiresAt, f.Deadline, f.Status,
		f.ArchivedAt, f.ArchiveReason, f.Source, *f.ExtractionCount, *f.CreatedAt, *f.UpdatedAt)
	if d := f.Decision; d != nil {
		return append(row, d.Decision, d.Alternatives, d.Reasoning, d.DecidedBy, *d.DecidedAt, *d.DoNotReopen,
			d.ReopenedAt, d.ReopenedBy, d.ReopenReason, *d.CreatedAt, *d.UpdatedAt)
	}
	return append(row, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)
}

// PushStreamOptions tune a PushStream.
type PushStreamOptions struct {
	// DryRun validates every batch and computes its notes, then rolls back:
	// nothing is written.
	DryRun bool
	// Pushed, when set, is told each batch's index and result once the
	// batch is written (not yet committed); an error it returns stops the
	// push, and nothing is written.
	Pushed func(i int, r PushResult) error
}

// PushStream is PushAll over a sequence of batches, for an import too large
// to hold: the batches are read one at a time and each is checked and
// written as it comes, all in one transaction, so that every row of every
// batch is written or none, and only the batch in hand is held in memory.
// Each batch is held to a push's rules and noted as PushAll notes it; a
// refused batch is named as PushAll names it (batches[3].nodes[12].content).
// An error of the sequence stops the push and is returned as it is;
// nothing is written.
func (s *Store) PushStream(ctx context.Context, actor Actor, batches iter.Seq2[PushBatch, error], opts PushStreamOptions) error {
	errDryRun := errors.New("dry run")
	err := s.tx(ctx, func(q *queries.Queries, tx pgx.Tx) error {
		i := 0
		for b, err := range batches {
			if err != nil {
				return err
			}
			params, err := s.pushParams(b.Scope, b.Nodes)
			if err != nil {
				return prefixField(err, fmt.Sprintf("batches[%d]", i))
			}
			notes, err := s.pushNotes(ctx, q, b.Scope, b.Nodes)
			if err != nil {
				return err
			}
			r := PushResult{Notes: append([]PushNote{}, notes...)}
			if r.IDs, err = s.writeNodes(ctx, q, actor, params); err != nil {
				return fmt.Errorf("batch %d: %w", i, err)
			}
			if opts.Pushed != nil {
				if err := opts.Pushed(i, r); err != nil {
					return err
				}
			}
			i++
		}
		if i == 0 {
			return Invalidf("batches", "nothing to push: give at least one batch of rows")
		}
		if opts.DryRun {
			return errDryRun
		}
		return nil
	})
	if errors.Is(err, errDryRun) {
		return nil
	}
	return err
}
