package moving

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/memory"
)

// NOVA keeps its memory in two tables:
//
//	entities      (id, name, type)
//	entity_facts  (id, entity_id, key, value, data jsonb, source, confidence,
//	               learned_at, last_confirmed_at, confirmation_count,
//	               durability, category)     -- after NOVA's two-axis migration
//	               ... data_type)            -- before it: one legacy column
//
// ReadNova reads them in one read-only snapshot and hands each fact to the
// engine as an import line, exactly as a line of an import file: Line is
// the row's ordinal in the order read (by entity_facts.id), and the problems
// of a refused import are given back naming the NOVA table and row.
//
// How a row maps:
//
//	entities.name, entities.type  → entity, entity kind (lowercased)
//	key                           → key (lowercased)
//	value                         → content
//	durability, category          → the two axes, as they are
//	data_type (legacy)            → the two axes, by memory.MapLegacyDataType
//	                                 (as the import of a file maps it)
//	confidence                    → confidence
//	learned_at                    → created_at
//	last_confirmed_at             → confirmed_at (learned_at when empty)
//	confirmation_count            → extraction_count (at least 1)
//	data.decision, data.reasoning,
//	data.alternatives             → a decision: category decision, locked
//	                                 unless data.do_not_reopen is false
//
// NOVA's free-text source is not kept: Tenure's facts name how they were
// written, and these were imported. Timestamps without a time zone are read
// as UTC.

// The NOVA tables ReadNova reads.
const (
	NovaEntitiesTable = "entities"
	NovaFactsTable    = "entity_facts"
)

// The columns of entity_facts ReadNova reads when they exist; entity_id,
// key and value are required, and durability with category, or data_type.
var novaFactColumns = []string{"id", "entity_id", "key", "value", "data", "source", "confidence",
	"learned_at", "last_confirmed_at", "confirmation_count", "durability", "category", "data_type"}

// Nova is an open NOVA database: one connection holding one read-only,
// repeatable-read transaction, so that everything read comes from one
// snapshot and nothing can be written through it. Close it when done.
type Nova struct {
	conn   *pgx.Conn
	tx     pgx.Tx
	where  string // host:port/database, never the password
	schema string
	facts  map[string]bool // the columns of entity_facts
	kind   bool            // entities has a type column
	total  int
	scope  string

	// refs names the rows read, by ordinal - 1: NOVA's id, or its entity
	// and key when entity_facts has no id column.
	refs []string
}

// ReadNova connects to the NOVA database at url, opens a read-only
// transaction, finds NOVA's tables on the search path and which of their
// columns exist (through information_schema), and counts the facts. scope
// is the Tenure scope every fact will belong to. The error says what is
// missing when the database does not look like NOVA's.
func ReadNova(ctx context.Context, url, scope string) (*Nova, error) {
	scope = strings.TrimSpace(scope)
	if scope == "" {
		return nil, memory.Invalidf("scope", "name the Tenure scope NOVA's facts go to (--scope): NOVA has no scopes, and every fact of Tenure belongs to one")
	}
	if _, err := memory.ParseScope(scope); err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("the NOVA database URL is not valid (use postgres://user:password@host:5432/database): %v", redactURL(err, url))
	}
	n := &Nova{where: net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))) + "/" + cfg.Database, scope: scope}
	if n.conn, err = pgx.ConnectConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("connect to the NOVA database %s: %v", n.where, redactURL(err, url))
	}
	if err := n.open(ctx); err != nil {
		n.Close()
		return nil, err
	}
	return n, nil
}

// redactURL is err's text with url's password, if any, masked.
func redactURL(err error, url string) string {
	msg := err.Error()
	if cfg, perr := pgx.ParseConfig(url); perr == nil && cfg.Password != "" {
		msg = strings.ReplaceAll(msg, cfg.Password, "xxxxx")
	}
	return msg
}

func (n *Nova) open(ctx context.Context) error {
	var err error
	n.tx, err = n.conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("NOVA database %s: begin a read-only transaction: %w", n.where, err)
	}
	// Timestamps without a time zone are read as UTC.
	if _, err := n.tx.Exec(ctx, `SET LOCAL TimeZone = 'UTC'`); err != nil {
		return fmt.Errorf("NOVA database %s: %w", n.where, err)
	}
	err = n.tx.QueryRow(ctx, `
SELECT t.s FROM unnest(current_schemas(false)) WITH ORDINALITY AS t(s, n)
WHERE EXISTS (SELECT 1 FROM information_schema.tables i WHERE i.table_schema = t.s AND i.table_name = $1)
ORDER BY t.n LIMIT 1`, NovaFactsTable).Scan(&n.schema)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("NOVA database %s has no table %s on its search path: is this NOVA's database?", n.where, NovaFactsTable)
	}
	if err != nil {
		return fmt.Errorf("NOVA database %s: find its tables: %w", n.where, err)
	}
	rows, err := n.tx.Query(ctx, `
SELECT table_name::text, column_name::text FROM information_schema.columns
WHERE table_schema = $1 AND table_name IN ($2, $3)`, n.schema, NovaEntitiesTable, NovaFactsTable)
	if err != nil {
		return fmt.Errorf("NOVA database %s: read its columns: %w", n.where, err)
	}
	n.facts = map[string]bool{}
	entities := map[string]bool{}
	var table, column string
	if _, err := pgx.ForEachRow(rows, []any{&table, &column}, func() error {
		if table == NovaFactsTable {
			n.facts[column] = true
		} else {
			entities[column] = true
		}
		return nil
	}); err != nil {
		return fmt.Errorf("NOVA database %s: read its columns: %w", n.where, err)
	}
	if len(entities) == 0 {
		return fmt.Errorf("NOVA database %s has no table %s in schema %s beside %s: is this NOVA's database?",
			n.where, NovaEntitiesTable, n.schema, NovaFactsTable)
	}
	for _, c := range []string{"id", "name"} {
		if !entities[c] {
			return fmt.Errorf("NOVA database %s: table %s has no column %s (NOVA's entities have id, name and type)", n.where, NovaEntitiesTable, c)
		}
	}
	n.kind = entities["type"]
	for _, c := range []string{"entity_id", "key", "value"} {
		if !n.facts[c] {
			return fmt.Errorf("NOVA database %s: table %s has no column %s: is this NOVA's database? (a fact of NOVA has entity_id, key and value)",
				n.where, NovaFactsTable, c)
		}
	}
	if !n.twoAxis() && !n.facts["data_type"] {
		return fmt.Errorf("NOVA database %s: table %s has neither durability and category nor the legacy data_type: Tenure cannot tell the axes of its facts",
			n.where, NovaFactsTable)
	}
	if err := n.tx.QueryRow(ctx, `SELECT count(*) FROM `+n.table(NovaFactsTable)).Scan(&n.total); err != nil {
		return fmt.Errorf("NOVA database %s: count the facts: %w", n.where, err)
	}
	return nil
}

// twoAxis reports whether NOVA's two-axis migration ran.
func (n *Nova) twoAxis() bool { return n.facts["durability"] && n.facts["category"] }

func (n *Nova) table(name string) string { return pgx.Identifier{n.schema, name}.Sanitize() }

// Where names the NOVA database: host:port/database.
func (n *Nova) Where() string { return n.where }

// Facts is how many rows entity_facts holds in the snapshot read.
func (n *Nova) Facts() int { return n.total }

// Layout says which columns give the axes of NOVA's facts.
func (n *Nova) Layout() string {
	switch {
	case n.twoAxis() && n.facts["data_type"]:
		return "durability and category (data_type where both are empty)"
	case n.twoAxis():
		return "durability and category"
	}
	return "legacy data_type"
}

// Close ends the read-only transaction and the connection.
func (n *Nova) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if n.tx != nil {
		_ = n.tx.Rollback(ctx)
	}
	_ = n.conn.Close(ctx)
}

// novaRow is one row of entity_facts, joined to its entity, as read.
type novaRow struct {
	id, entityID            *string
	entityFound             bool
	entityName, entityType  *string
	key, value, data        *string
	source                  *string
	confidence              *float64
	learnedAt, confirmedAt  *time.Time
	confirmations           *int64
	durability, category    *string
	dataType                *string
	hasTwoAxis, hasDataType bool
}

// query is the statement that reads every fact, with NULL for the columns
// this NOVA database lacks.
func (n *Nova) query() string {
	col := func(name, cast string) string {
		if n.facts[name] {
			return "f." + pgx.Identifier{name}.Sanitize() + "::" + cast
		}
		return "NULL::" + cast
	}
	kind := "NULL::text"
	if n.kind {
		kind = "e.type::text"
	}
	order := "f.id"
	if !n.facts["id"] {
		order = "f.entity_id, f.key, " + col("learned_at", "timestamptz") + ", f.value"
	}
	return `SELECT ` + col("id", "text") + `, f.entity_id::text, e.id IS NOT NULL, e.name::text, ` + kind + `,
    f.key::text, f.value::text, ` + col("data", "text") + `, ` + col("source", "text") + `, ` + col("confidence", "float8") + `,
    ` + col("learned_at", "timestamptz") + `, ` + col("last_confirmed_at", "timestamptz") + `, ` + col("confirmation_count", "bigint") + `,
    ` + col("durability", "text") + `, ` + col("category", "text") + `, ` + col("data_type", "text") + `
FROM ` + n.table(NovaFactsTable) + ` f
LEFT JOIN ` + n.table(NovaEntitiesTable) + ` e ON e.id = f.entity_id
ORDER BY ` + order
}

// Lines reads every fact of the snapshot, in the order of NOVA's ids, as
// the import lines memory.Store.ImportStream takes: one per row, Line its
// ordinal. A row that cannot be mapped carries its error; a failure to read
// the database ends the sequence with it.
func (n *Nova) Lines(ctx context.Context) iter.Seq2[memory.ImportLine, error] {
	return func(yield func(memory.ImportLine, error) bool) {
		n.refs = n.refs[:0]
		rows, err := n.tx.Query(ctx, n.query())
		if err != nil {
			yield(memory.ImportLine{}, fmt.Errorf("read NOVA's facts: %w", err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			// A fresh row each time: the line keeps pointers into it.
			r := novaRow{hasTwoAxis: n.twoAxis(), hasDataType: n.facts["data_type"]}
			if err := rows.Scan(&r.id, &r.entityID, &r.entityFound, &r.entityName, &r.entityType,
				&r.key, &r.value, &r.data, &r.source, &r.confidence, &r.learnedAt, &r.confirmedAt,
				&r.confirmations, &r.durability, &r.category, &r.dataType); err != nil {
				yield(memory.ImportLine{}, fmt.Errorf("read NOVA's facts: %w", err))
				return
			}
			n.refs = append(n.refs, r.ref())
			if !yield(novaLine(len(n.refs), n.scope, r), nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(memory.ImportLine{}, fmt.Errorf("read NOVA's facts: %w", err))
		}
	}
}

// ref names the row in NOVA's terms.
func (r novaRow) ref() string {
	if r.id != nil {
		return NovaFactsTable + " id " + *r.id
	}
	return fmt.Sprintf("%s row of entity_id %s, key %q", NovaFactsTable, deref(r.entityID), deref(r.key))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// novaLine maps one NOVA row to the import line of a fact of scope.
func novaLine(ordinal int, scope string, r novaRow) memory.ImportLine {
	l := memory.ImportLine{Line: ordinal, Mapping: memory.MappingAxes}
	f := &l.Fact
	f.Scope = scope
	f.Entity = deref(r.entityName)
	f.EntityKind = strings.ToLower(strings.TrimSpace(deref(r.entityType)))
	f.Key = strings.ToLower(strings.TrimSpace(deref(r.key)))
	f.Content = deref(r.value)
	f.Confidence = r.confidence
	f.CreatedAt = r.learnedAt
	f.ConfirmedAt = r.confirmedAt
	if f.ConfirmedAt == nil {
		f.ConfirmedAt = r.learnedAt
	}
	f.UpdatedAt = f.ConfirmedAt
	f.Source = memory.SourceImport
	if r.confirmations != nil {
		c := int32(max(1, min(*r.confirmations, 1<<31-1)))
		f.ExtractionCount = &c
	}
	if !r.entityFound {
		l.Err = memory.Invalidf("entity_id", "entity %s is not in NOVA's %s table: every fact needs the entity it is about",
			deref(r.entityID), NovaEntitiesTable)
		return l
	}

	durability, category := strings.TrimSpace(deref(r.durability)), strings.TrimSpace(deref(r.category))
	switch {
	case r.hasTwoAxis && (durability != "" || category != ""), !r.hasDataType:
		f.Durability, f.Category = durability, category
	default:
		dt := strings.TrimSpace(deref(r.dataType))
		d, c, ok := memory.MapLegacyDataType(dt)
		if !ok {
			what := fmt.Sprintf("unknown data_type %q", dt)
			if dt == "" {
				what = "the row has no data_type"
				if r.hasTwoAxis {
					what = "the row has no durability, category or data_type"
				}
			}
			l.Err = memory.Invalidf("data_type", "%s: allowed values are %s", what, strings.Join(memory.LegacyDataTypes(), ", "))
			return l
		}
		f.Durability, f.Category = string(d), c
		l.Mapping = fmt.Sprintf("data_type:%s -> %s/%s", dt, d, c)
	}

	decision, err := novaDecision(r)
	if err != nil {
		l.Err = err
		return l
	}
	if decision != nil {
		f.Category = memory.CategoryDecision
		f.Decision = decision
		l.Mapping = "data.decision -> " + f.Durability + "/" + memory.CategoryDecision
	}
	return l
}

// novaDecision is the decision a row's data carries, nil when data holds
// none of decision, reasoning and alternatives. The decision's text is
// data.decision, or the fact's value when data gives only the reasoning or
// the alternatives.
func novaDecision(r novaRow) (*memory.TransferDecision, error) {
	if r.data == nil {
		return nil, nil
	}
	var data map[string]any
	if err := json.Unmarshal([]byte(*r.data), &data); err != nil {
		// data is jsonb in NOVA: anything that is not an object (a list, a
		// string) carries no decision.
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, memory.Invalidf("data", "data is not valid JSON: %v", err)
		}
		return nil, nil
	}
	_, hasDecision := data["decision"]
	_, hasReasoning := data["reasoning"]
	_, hasAlternatives := data["alternatives"]
	if !hasDecision && !hasReasoning && !hasAlternatives {
		return nil, nil
	}
	str := func(key string) (string, error) {
		v, ok := data[key]
		if !ok || v == nil {
			return "", nil
		}
		s, isString := v.(string)
		if !isString {
			return "", memory.Invalidf("data."+key, "data.%s must be text, not %s", key, jsonKind(v))
		}
		return s, nil
	}
	d := &memory.TransferDecision{Alternatives: []string{}}
	var err error
	if d.Decision, err = str("decision"); err != nil {
		return nil, err
	}
	if strings.TrimSpace(d.Decision) == "" {
		d.Decision = deref(r.value)
	}
	if d.Reasoning, err = str("reasoning"); err != nil {
		return nil, err
	}
	if d.DecidedBy, err = str("decided_by"); err != nil {
		return nil, err
	}
	switch alts := data["alternatives"].(type) {
	case nil:
	case string:
		if strings.TrimSpace(alts) != "" {
			d.Alternatives = []string{alts}
		}
	case []any:
		for i, a := range alts {
			s, ok := a.(string)
			if !ok {
				return nil, memory.Invalidf(fmt.Sprintf("data.alternatives[%d]", i), "data.alternatives must be a list of texts; item %d is %s", i, jsonKind(a))
			}
			d.Alternatives = append(d.Alternatives, s)
		}
	default:
		return nil, memory.Invalidf("data.alternatives", "data.alternatives must be a list of texts, not %s", jsonKind(alts))
	}
	switch v := data["do_not_reopen"].(type) {
	case nil:
	case bool:
		d.DoNotReopen = &v
	default:
		return nil, memory.Invalidf("data.do_not_reopen", "data.do_not_reopen must be true or false, not %s", jsonKind(v))
	}
	return d, nil
}

// jsonKind names the JSON type of a decoded value, for messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	case string:
		return "text"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// NovaReport is what an import from NOVA wrote (or, in a dry run, would
// write): the engine's report, whose ByMapping counts the facts by how
// they gave their axes (durability+category; data_type:<value> -> the axes
// it maps to; data.decision -> the decision's axes), and where they came
// from.
type NovaReport struct {
	memory.ImportReport
	// Source is the NOVA database, host:port/database.
	Source string `json:"source"`
	// Layout says which columns gave the axes.
	Layout string `json:"layout"`
	// Scope is the Tenure scope the facts went to.
	Scope string `json:"scope"`
}

// Import writes every fact of the NOVA database to its scope through
// store.ImportStream, in one transaction, or nothing: a row that cannot be
// mapped or that the engine refuses refuses the whole import with a
// *NovaRefusal naming NOVA's rows. opts.Scope is set to the scope.
func (n *Nova) Import(ctx context.Context, store *memory.Store, actor memory.Actor, opts memory.ImportOptions) (NovaReport, error) {
	report := NovaReport{Source: n.where, Layout: n.Layout(), Scope: n.scope}
	if n.total == 0 {
		return report, memory.Invalidf("", "NOVA database %s holds no facts (%s is empty): nothing to import", n.where, NovaFactsTable)
	}
	opts.Scope = n.scope
	var err error
	report.ImportReport, err = store.ImportStream(ctx, actor, n.Lines(ctx), opts)
	if e := memory.AsError(err); e != nil && e.Problems != nil {
		return report, n.refusal(e)
	}
	// The facts already past their forget date, named as NOVA knows them.
	for i, f := range report.ForgottenLines {
		if f.Line >= 1 && f.Line <= len(n.refs) {
			report.ForgottenLines[i].Where = n.refs[f.Line-1]
		}
	}
	return report, err
}

// NovaProblem is what is wrong with one row of NOVA.
type NovaProblem struct {
	// Row is the row's ordinal, in the order of NOVA's ids.
	Row int `json:"row"`
	// Where names the row as NOVA knows it: entity_facts id 42.
	Where   string `json:"where"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// NovaRefusal is the refusal of a whole import from NOVA: nothing was
// written. It unwraps to the engine's *memory.Error.
type NovaRefusal struct {
	Message  string
	Problems []NovaProblem
	cause    *memory.Error
}

func (r *NovaRefusal) Error() string {
	var b strings.Builder
	b.WriteString(r.Message)
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "\n  %s (row %d): ", p.Where, p.Row)
		if p.Field != "" {
			b.WriteString(p.Field + ": ")
		}
		b.WriteString(p.Message)
	}
	return b.String()
}

func (r *NovaRefusal) Unwrap() error { return r.cause }

// refusal restates the engine's refusal of the import in NOVA's terms.
func (n *Nova) refusal(e *memory.Error) *NovaRefusal {
	msg := strings.NewReplacer(
		"the file was refused", "the NOVA database "+n.where+" was refused",
		"lines are invalid", "rows are invalid",
		"line is invalid", "row is invalid",
	).Replace(e.Message)
	out := &NovaRefusal{Message: msg, cause: e, Problems: make([]NovaProblem, len(e.Problems))}
	for i, p := range e.Problems {
		where := fmt.Sprintf("%s row %d", NovaFactsTable, p.Line)
		if p.Line >= 1 && p.Line <= len(n.refs) {
			where = n.refs[p.Line-1]
		}
		out.Problems[i] = NovaProblem{Row: p.Line, Where: where, Field: p.Field, Message: p.Message}
	}
	return out
}
