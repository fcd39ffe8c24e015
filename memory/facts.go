package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/queries"
)

// Fact is one fact about an entity in long-term memory.
type Fact struct {
	ID         int64      `json:"id"`
	Scope      string     `json:"scope"`
	EntityID   int64      `json:"entity_id"`
	Entity     string     `json:"entity"`
	Key        string     `json:"key"`
	Content    string     `json:"content"`
	Durability Durability `json:"durability"`
	Category   string     `json:"category"`
	// Confidence is c0, the confidence at ConfirmedAt; decay never overwrites it.
	Confidence float64 `json:"confidence"`
	// EffectiveConfidence is the decayed confidence at the moment the fact
	// was read, computed by tenure_effective_confidence.
	EffectiveConfidence float64    `json:"effective_confidence"`
	Importance          float64    `json:"importance"`
	ConfirmedAt         time.Time  `json:"confirmed_at"`
	ExpiresAt           *time.Time `json:"expires_at"`
	Deadline            *time.Time `json:"deadline"`
	// ForgetAt is when decay will archive the fact; nil when it never decays.
	ForgetAt        *time.Time `json:"forget_at"`
	Status          Status     `json:"status"`
	ArchivedAt      *time.Time `json:"archived_at"`
	ArchiveReason   string     `json:"archive_reason"`
	Source          string     `json:"source"`
	SourceNodeID    *int64     `json:"source_node_id"`
	ExtractionCount int32      `json:"extraction_count"`
	Version         int32      `json:"version"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
}

// factRow is the one shape every fact query returns; the other generated row
// types convert to it because their fields are identical.
type factRow = queries.FactByIDRow

func newFact(r factRow) Fact {
	f := Fact{
		ID: r.ID, Scope: r.Scope, EntityID: r.EntityID, Entity: r.EntityName, Key: r.Key,
		Content: r.Content, Durability: Durability(r.Durability), Category: r.Category,
		Confidence: r.Confidence, EffectiveConfidence: r.EffectiveConfidence,
		Importance: r.Importance, ConfirmedAt: r.ConfirmedAt, ExpiresAt: r.ExpiresAt,
		Deadline: r.Deadline, ForgetAt: r.ForgetAt, Status: Status(r.Status),
		ArchivedAt: r.ArchivedAt, Source: r.Source, SourceNodeID: r.SourceNodeID,
		ExtractionCount: r.ExtractionCount, Version: r.Version, CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt,
	}
	if r.ArchiveReason != nil {
		f.ArchiveReason = *r.ArchiveReason
	}
	return f
}

// anyFactRow is every generated row type with factRow's fields.
type anyFactRow interface {
	~struct {
		ID                  int64
		Scope               string
		EntityID            int64
		EntityName          string
		Key                 string
		Content             string
		Durability          string
		Category            string
		Confidence          float64
		Importance          float64
		ConfirmedAt         time.Time
		ExpiresAt           *time.Time
		Deadline            *time.Time
		ForgetAt            *time.Time
		Status              string
		ArchivedAt          *time.Time
		ArchiveReason       *string
		Source              string
		SourceNodeID        *int64
		ExtractionCount     int32
		Version             int32
		CreatedAt           time.Time
		UpdatedAt           time.Time
		EffectiveConfidence float64
	}
}

func newFacts[R anyFactRow](rows []R) []Fact {
	out := make([]Fact, len(rows))
	for i, r := range rows {
		out[i] = newFact(factRow(r))
	}
	return out
}

// The sources of a fact: how it arrived in long-term memory.
const (
	SourceAPI           = "api"
	SourceHuman         = "human"
	SourceExtraction    = "extraction"
	SourceImport        = "import"
	SourceConsolidation = "consolidation"
)

// ParseSource validates a fact's source.
func ParseSource(s string) (string, error) {
	switch s {
	case SourceAPI, SourceHuman, SourceExtraction, SourceImport, SourceConsolidation:
		return s, nil
	}
	return "", Invalidf("source", "unknown source %q: allowed values are api, human, extraction, import, consolidation", s)
}

// sourceOf is the source of a fact written by a, when the writer names none:
// people write human facts, agents' tokens api facts, and Tenure's own
// extraction, import and consolidation jobs their own.
func sourceOf(a Actor) string {
	switch a.Kind {
	case ActorHuman:
		return SourceHuman
	case ActorSystem:
		switch a.Name {
		case SourceExtraction, SourceImport, SourceConsolidation:
			return a.Name
		}
	}
	return SourceAPI
}

// rejectionSource is consolidation_rejections.source for a write by a refused
// outside a consolidation run.
func rejectionSource(a Actor) string {
	if a.Kind == ActorSystem {
		switch a.Name {
		case "extraction", "import", "consolidation", "mcp":
			return a.Name
		}
	}
	return "api"
}

// durabilityRank orders durabilities from the fastest decay (0) to the slowest.
func durabilityRank(d Durability) int {
	switch d {
	case Ephemeral:
		return 0
	case ShortTerm:
		return 1
	case LongTerm:
		return 2
	case Permanent:
		return 3
	}
	return -1
}

// defaultDurability is the durability of a fact of category whose writer
// named none; categories the product does not know get long_term, the
// column default.
func defaultDurability(category string) Durability {
	return DefaultDurability(category, LongTerm)
}

// The limits of the fields people and agents type.
const (
	maxContent    = 10000
	maxEntityName = 200
	maxReason     = 2000
	maxBulk       = 1000
)

// The defaults of a new fact.
const (
	defaultFactConfidence = 0.8
	defaultImportance     = 0.5
	defaultEntityKind     = "thing"
)

func parseContent(field, s string) (string, error) {
	if err := CheckText(field, s); err != nil {
		return "", err
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", Invalidf(field, "the %s is empty: write what is known, in at most %d characters", field, maxContent)
	}
	if n := utf8.RuneCountInString(s); n > maxContent {
		return "", Invalidf(field, "the %s is %d characters long: at most %d are allowed", field, n, maxContent)
	}
	return s, nil
}

func parseEntity(s string) (string, error) {
	if err := CheckText("entity", s); err != nil {
		return "", err
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", Invalidf("entity", "the entity is empty: name who or what the fact is about (at most %d characters)", maxEntityName)
	}
	if n := utf8.RuneCountInString(s); n > maxEntityName {
		return "", Invalidf("entity", "the entity name is %d characters long: at most %d are allowed", n, maxEntityName)
	}
	return s, nil
}

func parseEntityKind(s string) (string, error) {
	if s == "" {
		return defaultEntityKind, nil
	}
	if !categoryPattern.MatchString(s) {
		return "", Invalidf("entity_kind", "invalid entity kind %q: use a lowercase slug of letters, digits and underscores starting with a letter, at most 40 characters (for example person, project)", s)
	}
	return s, nil
}

// parseUnit validates a confidence or an importance (UnitBound).
func parseUnit(field string, v float64) error {
	return UnitBound.Check(field, v)
}

func parseReason(s string) (string, error) {
	if err := CheckText("reason", s); err != nil {
		return "", err
	}
	s = strings.TrimSpace(s)
	if n := utf8.RuneCountInString(s); n > maxReason {
		return "", Invalidf("reason", "the reason is %d characters long: at most %d are allowed", n, maxReason)
	}
	return s, nil
}

// parsePageSize validates the page size of a list: 0 means def, anything
// else must lie in [1, most].
func parsePageSize(limit, def, most int) (int32, error) {
	switch {
	case limit == 0:
		return int32(def), nil
	case limit < 0 || limit > most:
		return 0, Invalidf("limit", "limit %d is out of range: it must be between 1 and %d", limit, most)
	}
	return int32(limit), nil
}

// parseIDs validates the ids of a bulk change and returns them sorted and
// without duplicates.
func parseIDs(ids []int64) ([]int64, error) {
	if len(ids) == 0 {
		return nil, Invalidf("ids", "no facts chosen: pick at least one fact")
	}
	if len(ids) > maxBulk {
		return nil, Invalidf("ids", "%d facts chosen: at most %d can be changed at once", len(ids), maxBulk)
	}
	out := slices.Clone(ids)
	slices.Sort(out)
	out = slices.Compact(out)
	if out[0] <= 0 {
		return nil, Invalidf("ids", "invalid fact id %d: ids are positive numbers", out[0])
	}
	return out, nil
}

func joinIDs(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ", ")
}

// errDecisionCategory refuses category decision outside RecordDecision: a
// decision is a fact plus its decisions row, and the row carries the reasoning.
func errDecisionCategory() error {
	return Invalidf("category", "category decision is reserved for recorded decisions: record a decision, with its reasoning, instead of writing a plain fact")
}

// lockKey names the advisory lock that serialises writers of one
// (scope, entity, key).
func lockKey(scope, entity, key string) string { return scope + "/" + entity + "/" + key }

func isNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// NewFact is a fact to write.
type NewFact struct {
	Scope      string
	Entity     string // the entity's name; created in Scope when missing
	EntityKind string // for a new entity; default thing
	Key        string // a short predicate such as lives_in; may be empty
	Content    string
	// Durability defaults by category: mood ephemeral, state and obligation
	// short_term, identity permanent, anything else long_term.
	Durability Durability
	Category   string   // default observation
	Confidence *float64 // default 0.8
	Importance *float64 // default 0.5
	ExpiresAt  *time.Time
	Deadline   *time.Time // obligations only
	// Source defaults from the actor: human for people, api for tokens,
	// extraction, import or consolidation for those jobs.
	Source       string
	SourceNodeID *int64
	// ObservedAt is when the fact's statement was observed: the fact is
	// confirmed then and decays from then. Nil means now; CheckObservedAt
	// bounds it.
	ObservedAt *time.Time
}

// validate checks in and fills its defaults.
func (in NewFact) validate(actor Actor, now time.Time) (NewFact, error) {
	var err error
	if in.Scope, err = ParseScope(in.Scope); err != nil {
		return in, err
	}
	if in.Entity, err = parseEntity(in.Entity); err != nil {
		return in, err
	}
	if in.EntityKind, err = parseEntityKind(in.EntityKind); err != nil {
		return in, err
	}
	in.Key = strings.TrimSpace(in.Key)
	if in.Key, err = ParseKey(in.Key); err != nil {
		return in, err
	}
	if in.Content, err = parseContent("content", in.Content); err != nil {
		return in, err
	}
	if in.Category == "" {
		in.Category = CategoryObservation
	}
	if in.Category, err = ParseCategory(in.Category); err != nil {
		return in, err
	}
	if in.Category == CategoryDecision {
		return in, errDecisionCategory()
	}
	if in.Durability == "" {
		in.Durability = defaultDurability(in.Category)
	}
	if in.Durability, err = ParseDurability(string(in.Durability)); err != nil {
		return in, err
	}
	if in.Confidence == nil {
		in.Confidence = pointerTo(defaultFactConfidence)
	}
	if err := parseUnit("confidence", *in.Confidence); err != nil {
		return in, err
	}
	if in.Importance == nil {
		in.Importance = pointerTo(defaultImportance)
	}
	if err := parseUnit("importance", *in.Importance); err != nil {
		return in, err
	}
	if err := checkExpiresAt(in.ExpiresAt, now); err != nil {
		return in, err
	}
	if in.ObservedAt == nil {
		in.ObservedAt = &now
	}
	if err := CheckObservedAt("observed_at", *in.ObservedAt, now); err != nil {
		return in, err
	}
	in.ObservedAt = micro(in.ObservedAt)
	if err := checkDeadline(in.Deadline, in.Category); err != nil {
		return in, err
	}
	if in.Source == "" {
		in.Source = sourceOf(actor)
	}
	if in.Source, err = ParseSource(in.Source); err != nil {
		return in, err
	}
	if in.Source == SourceHuman && actor.Automated() {
		return in, Invalidf("source", "source human is for facts people write in the console: an automated writer uses api, extraction, import or consolidation")
	}
	if in.SourceNodeID != nil && *in.SourceNodeID <= 0 {
		return in, Invalidf("source_node_id", "invalid source node id %d: ids are positive numbers", *in.SourceNodeID)
	}
	return in, nil
}

func checkExpiresAt(t *time.Time, now time.Time) error {
	if t == nil {
		return nil
	}
	if err := CheckTime("expires_at", *t); err != nil {
		return err
	}
	if !t.After(now) {
		return Invalidf("expires_at", "expires_at %s is not in the future: a fact that has already expired would be archived at once", t.UTC().Format(time.RFC3339))
	}
	return nil
}

// checkDeadline refuses a deadline being set on a fact that is not an
// obligation: only obligations decay from their deadline, so on any other
// fact it would do nothing; expires_at is what ends a fact at a time.
func checkDeadline(t *time.Time, category string) error {
	if t == nil {
		return nil
	}
	if err := CheckTime("deadline", *t); err != nil {
		return err
	}
	if category != CategoryObligation {
		return Invalidf("deadline", "a deadline applies only to obligations (category obligation), not to %s; use expires_at to end a fact at a given time", category)
	}
	return nil
}

func pointerTo[T any](v T) *T { return &v }

// GetFact returns the fact with id.
func (s *Store) GetFact(ctx context.Context, id int64) (Fact, error) {
	var row queries.FactByIDRow
	err := s.read(ctx, func(ctx context.Context, db *queries.Queries) error {
		var err error
		row, err = db.FactByID(ctx, queries.FactByIDParams{Now: s.Now(), ID: id})
		return err
	})
	if isNoRows(err) {
		return Fact{}, NotFoundf("no fact with id %d", id)
	}
	if err != nil {
		return Fact{}, fmt.Errorf("get fact %d: %w", id, err)
	}
	return newFact(row), nil
}

// CreateFact writes a fact, confirmed when it was observed (in.ObservedAt,
// default now), or reinforces the active fact that already says the same
// thing (same scope, entity and key, same content ignoring case and
// surrounding space) and was not yet forgotten then: its confidence becomes
// 1 - (1 - c_fact)(1 - c_new), both taken at the later of its confirmation
// and the observation, it is confirmed at that later time (an older
// observation never makes it look fresher), its extraction count and version
// go up, and its durability and category stay as they are, so a mood
// observed again stays ephemeral. reinforced reports which.
//
// Facts of category decision are refused for every writer: a decision is
// written with RecordDecision, which keeps its reasoning. An automated actor
// may not write on the scope, entity and key of a locked decision: the write
// is refused with a *Error and the refusal logged. People are not held
// by the lock; they act deliberately, and the audit log records them.
//
// A negation ("I no longer live in Berlin") on the key it denies (or with
// no key) states no fact: it retires the entity's active facts on that key
// that name the denied value, and the fact returned is its record, born
// archived, whose archive_reason says what it retired ("denial of home_city
// "Berlin": retired fact 12", or that no active fact named it); nothing of
// it becomes current (retract.go). An automated writer is held by a locked
// decision on the denied key as for any write.
func (s *Store) CreateFact(ctx context.Context, actor Actor, in NewFact) (f Fact, reinforced bool, err error) {
	now := s.Now()
	if in, err = in.validate(actor, now); err != nil {
		return Fact{}, false, err
	}
	// A negation retires what it denies rather than becoming a fact.
	deniedKey, deniedValue := rowDenial(in.Content, nil, CanonicalKey(in.Key), *in.ObservedAt)
	if deniedValue != "" && in.Key == "" {
		in.Key = deniedKey
	}
	var locked *Error
	err = s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		// One entity however it is spelled (entities.go).
		var err error
		if in.Entity, err = canonicalEntity(ctx, q, in.Scope, in.Entity); err != nil {
			return err
		}
		if err := q.LockFactKey(ctx, lockKey(in.Scope, in.Entity, in.Key)); err != nil {
			return fmt.Errorf("lock key: %w", err)
		}
		ent, err := q.EntityByName(ctx, queries.EntityByNameParams{Scope: in.Scope, Name: in.Entity})
		exists := err == nil
		if err != nil && !isNoRows(err) {
			return fmt.Errorf("entity: %w", err)
		}
		if exists && actor.Automated() && in.Key != "" {
			d, err := lockingDecision(ctx, q, in.Scope, ent.ID, in.Key)
			if err != nil {
				return err
			}
			if d != nil {
				locked, err = s.rejectLocked(ctx, q, actor, *d, in.Scope, in.Content, map[string]any{
					"action": "fact.create", "entity": in.Entity, "key": in.Key,
					"category": in.Category, "durability": in.Durability,
				})
				return err
			}
		}
		if !exists {
			ent, err = q.UpsertEntity(ctx, queries.UpsertEntityParams{Scope: in.Scope, Name: in.Entity, Kind: in.EntityKind})
			if err != nil {
				return fmt.Errorf("entity: %w", err)
			}
		}
		if deniedValue != "" {
			f, err = s.createDenial(ctx, q, actor, now, in, ent.ID, deniedKey, deniedValue)
			return err
		}
		if exists {
			same, err := q.SameActiveFact(ctx, queries.SameActiveFactParams{
				Now: now, EntityID: ent.ID, Key: in.Key, Scope: in.Scope, Content: in.Content,
				ObservedAt: *in.ObservedAt,
			})
			switch {
			case err == nil:
				f, err = s.reinforce(ctx, q, actor, newFact(factRow(same)), *in.Confidence, *in.ObservedAt,
					"the same fact was written again")
				reinforced = true
				if err != nil {
					return err
				}
				// Confirmed again, it may be the newest on its key again.
				return s.supersedeWritten(ctx, q, actor, now, &f)
			case !isNoRows(err):
				return fmt.Errorf("find same fact: %w", err)
			}
		}
		row, err := q.InsertFact(ctx, queries.InsertFactParams{
			Now: now, ObservedAt: *in.ObservedAt, Scope: in.Scope, EntityID: ent.ID, Key: in.Key, Content: in.Content,
			Durability: string(in.Durability), Category: in.Category, Confidence: *in.Confidence,
			Importance: *in.Importance, ExpiresAt: in.ExpiresAt, Deadline: in.Deadline,
			Source: in.Source, SourceNodeID: in.SourceNodeID,
		})
		if err != nil {
			return fmt.Errorf("insert: %w", err)
		}
		f = newFact(factRow(row))
		if err := s.audit(ctx, q, auditEntry{
			actor: actor, action: "fact.create", targetType: "fact", targetID: strconv.FormatInt(f.ID, 10),
			scope: f.Scope, after: factAudit(f),
		}); err != nil {
			return err
		}
		return s.supersedeWritten(ctx, q, actor, now, &f)
	})
	if err != nil {
		return Fact{}, false, fmt.Errorf("create fact: %w", err)
	}
	if locked != nil {
		s.reportLocked(actor, in.Scope, locked)
		return Fact{}, false, locked
	}
	return f, reinforced, nil
}

// supersedeWritten applies supersession around f, just written, and reads
// f again when it lost: a statement observed before the current value of
// its attribute is archived as superseded by it at once.
func (s *Store) supersedeWritten(ctx context.Context, q *queries.Queries, actor Actor, now time.Time, f *Fact) error {
	out, err := s.supersede(ctx, q, actor, now, []int64{f.ID})
	if err != nil {
		return err
	}
	for _, x := range out {
		if x.FactID == f.ID {
			row, err := q.FactByID(ctx, queries.FactByIDParams{Now: now, ID: f.ID})
			if err != nil {
				return fmt.Errorf("fact %d: %w", f.ID, err)
			}
			*f = newFact(row)
		}
	}
	return nil
}

// factAudit is the audit log's picture of a fact as written.
func factAudit(f Fact) map[string]any {
	return map[string]any{
		"entity": f.Entity, "key": f.Key, "content": f.Content, "durability": f.Durability,
		"category": f.Category, "confidence": f.Confidence, "importance": f.Importance,
		"confirmed_at": f.ConfirmedAt, "expires_at": f.ExpiresAt, "deadline": f.Deadline,
		"forget_at": f.ForgetAt, "source": f.Source, "source_node_id": f.SourceNodeID,
		"version": f.Version,
	}
}

// reinforceAudit is the audit log's picture of a fact before it is
// reinforced, by a new observation or a merge.
func reinforceAudit(f Fact) map[string]any {
	return map[string]any{
		"confidence": f.Confidence, "effective_confidence": f.EffectiveConfidence,
		"confirmed_at": f.ConfirmedAt, "extraction_count": f.ExtractionCount,
		"forget_at": f.ForgetAt, "version": f.Version,
	}
}

// reinforce confirms cur, locked by the caller, by an observation of it at
// observed (confidence becomes 1 - (1 - c_fact)(1 - c_new), both at the
// later of cur's confirmation and observed; see ReinforceFactByID), and
// audits it.
func (s *Store) reinforce(ctx context.Context, q *queries.Queries, actor Actor, cur Fact, confidence float64, observed time.Time, reason string) (Fact, error) {
	row, err := q.ReinforceFactByID(ctx, queries.ReinforceFactByIDParams{Now: s.Now(), Confidence: confidence,
		ObservedAt: observed, ID: cur.ID})
	if err != nil {
		return Fact{}, fmt.Errorf("reinforce fact %d: %w", cur.ID, err)
	}
	f := newFact(factRow(row))
	err = s.audit(ctx, q, auditEntry{
		actor: actor, action: "fact.reinforce", targetType: "fact", targetID: strconv.FormatInt(f.ID, 10),
		scope:  f.Scope,
		before: reinforceAudit(cur),
		after: map[string]any{
			"confidence": f.Confidence, "observed_confidence": confidence, "observed_at": observed.UTC(),
			"confirmed_at": f.ConfirmedAt, "extraction_count": f.ExtractionCount,
			"forget_at": f.ForgetAt, "version": f.Version,
		},
		reason: reason,
	})
	return f, err
}

// ReinforceFact records that the fact with id was observed again with the
// given confidence: confidence becomes 1 - (1 - c_now)(1 - c_new),
// confirmed now; durability and category do not change. Archived facts are
// refused (restore them first); automated actors are held by locked decisions.
func (s *Store) ReinforceFact(ctx context.Context, actor Actor, id int64, confidence float64) (Fact, error) {
	if err := parseUnit("confidence", confidence); err != nil {
		return Fact{}, err
	}
	var (
		f      Fact
		scope  string
		locked *Error
	)
	err := s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		cur, err := factForUpdate(ctx, q, s.Now(), id)
		if err != nil {
			return err
		}
		scope = cur.Scope
		if cur.Status != StatusActive {
			return &Error{Code: CodeConflict, Message: fmt.Sprintf("fact %d is archived: restore it before reinforcing it", id)}
		}
		if actor.Automated() && cur.Key != "" {
			d, err := lockingDecision(ctx, q, cur.Scope, cur.EntityID, cur.Key)
			if err != nil {
				return err
			}
			if d != nil {
				locked, err = s.rejectLocked(ctx, q, actor, *d, cur.Scope, cur.Content, map[string]any{
					"action": "fact.reinforce", "fact_id": cur.ID, "entity": cur.Entity, "key": cur.Key,
				})
				return err
			}
		}
		f, err = s.reinforce(ctx, q, actor, cur, confidence, s.Now(), "observed again")
		return err
	})
	if err != nil {
		return Fact{}, fmt.Errorf("reinforce fact: %w", err)
	}
	if locked != nil {
		s.reportLocked(actor, scope, locked)
		return Fact{}, locked
	}
	return f, nil
}

func factForUpdate(ctx context.Context, q *queries.Queries, now time.Time, id int64) (Fact, error) {
	row, err := q.FactByIDForUpdate(ctx, queries.FactByIDForUpdateParams{Now: now, ID: id})
	if isNoRows(err) {
		return Fact{}, NotFoundf("no fact with id %d", id)
	}
	if err != nil {
		return Fact{}, fmt.Errorf("fact %d: %w", id, err)
	}
	return newFact(factRow(row)), nil
}

// FactChanges are the edits to a fact; a nil field is left unchanged.
type FactChanges struct {
	Content    *string
	Key        *string
	Durability *Durability
	Category   *string
	Confidence *float64 // a changed confidence re-confirms the fact (confirmed_at = now)
	Importance *float64
	Deadline   *time.Time
	// ClearDeadline removes the deadline; it may not be combined with Deadline.
	ClearDeadline bool
	ExpiresAt     *time.Time
	// ClearExpiresAt removes expires_at; it may not be combined with ExpiresAt.
	ClearExpiresAt bool
}

func (ch FactChanges) validate(now time.Time) (FactChanges, error) {
	if ch.Content != nil {
		c, err := parseContent("content", *ch.Content)
		if err != nil {
			return ch, err
		}
		ch.Content = &c
	}
	if ch.Key != nil {
		k, err := ParseKey(strings.TrimSpace(*ch.Key))
		if err != nil {
			return ch, err
		}
		ch.Key = &k
	}
	if ch.Durability != nil {
		if _, err := ParseDurability(string(*ch.Durability)); err != nil {
			return ch, err
		}
	}
	if ch.Category != nil {
		if _, err := ParseCategory(*ch.Category); err != nil {
			return ch, err
		}
	}
	if ch.Confidence != nil {
		if err := parseUnit("confidence", *ch.Confidence); err != nil {
			return ch, err
		}
	}
	if ch.Importance != nil {
		if err := parseUnit("importance", *ch.Importance); err != nil {
			return ch, err
		}
	}
	if ch.Deadline != nil && ch.ClearDeadline {
		return ch, Invalidf("deadline", "set a deadline or clear it, not both")
	}
	if ch.Deadline != nil {
		if err := CheckTime("deadline", *ch.Deadline); err != nil {
			return ch, err
		}
	}
	if ch.ExpiresAt != nil && ch.ClearExpiresAt {
		return ch, Invalidf("expires_at", "set expires_at or clear it, not both")
	}
	return ch, checkExpiresAt(ch.ExpiresAt, now)
}

// UpdateFact edits the fact with id if it is still at version; otherwise it
// returns a *Error (CodeConflict) holding the current fact and writes nothing.
//
// Moods never harden: an automated actor may not raise a fact's
// durability (ephemeral < short_term < long_term < permanent) nor change the
// category of a mood or state; people may, and are audited like every edit.
// An automated actor may not edit a fact on a locked decision's key either.
// The fact behind a decision is edited through EditDecision, and no fact
// becomes a decision here. A change of confidence re-confirms the fact. An
// edit that changes nothing returns the fact as it is, writing nothing.
func (s *Store) UpdateFact(ctx context.Context, actor Actor, id int64, version int32, ch FactChanges, reason string) (Fact, error) {
	if err := VersionBound.Check("version", float64(version)); err != nil {
		return Fact{}, err
	}
	now := s.Now()
	ch, err := ch.validate(now)
	if err != nil {
		return Fact{}, err
	}
	if reason, err = parseReason(reason); err != nil {
		return Fact{}, err
	}
	var (
		f      Fact
		scope  string
		locked *Error
	)
	err = s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		// Take the key locks before the row lock, in the order CreateFact and
		// RecordDecision take them, so that they cannot deadlock with this
		// edit. The version check below catches any change in between.
		seen, err := q.FactByID(ctx, queries.FactByIDParams{Now: now, ID: id})
		if isNoRows(err) {
			return NotFoundf("no fact with id %d", id)
		}
		if err != nil {
			return fmt.Errorf("fact %d: %w", id, err)
		}
		keys := []string{seen.Key}
		if ch.Key != nil {
			keys = append(keys, *ch.Key)
		}
		slices.Sort(keys)
		for _, key := range slices.Compact(keys) {
			if err := q.LockFactKey(ctx, lockKey(seen.Scope, seen.EntityName, key)); err != nil {
				return fmt.Errorf("lock key: %w", err)
			}
		}
		cur, err := factForUpdate(ctx, q, now, id)
		if err != nil {
			return err
		}
		scope = cur.Scope
		if cur.Version != version {
			return staleFact(cur)
		}
		next := cur
		applyFactChanges(&next, ch, now)
		if actor.Automated() {
			for _, key := range slices.Compact([]string{cur.Key, next.Key}) {
				if key == "" {
					continue
				}
				d, err := lockingDecision(ctx, q, cur.Scope, cur.EntityID, key)
				if err != nil {
					return err
				}
				if d != nil {
					locked, err = s.rejectLocked(ctx, q, actor, *d, cur.Scope, next.Content, map[string]any{
						"action": "fact.update", "fact_id": cur.ID, "entity": cur.Entity, "key": next.Key,
						"category": next.Category, "durability": next.Durability,
					})
					return err
				}
			}
		}
		if err := checkNotDecisionFacts(ctx, q, []int64{cur.ID}); err != nil {
			return err
		}
		if actor.Automated() {
			if err := checkNoHardening(cur, next.Durability, next.Category); err != nil {
				return err
			}
		}
		if next.Category == CategoryDecision && cur.Category != CategoryDecision {
			return errDecisionCategory()
		}
		if ch.Deadline != nil {
			if err := checkDeadline(ch.Deadline, next.Category); err != nil {
				return err
			}
		}
		before, after := factDiff(cur, next)
		if len(before) == 0 {
			f = cur
			return nil
		}
		row, err := q.UpdateFactFields(ctx, queries.UpdateFactFieldsParams{
			Key: next.Key, Content: next.Content, Durability: string(next.Durability),
			Category: next.Category, Confidence: next.Confidence, Importance: next.Importance,
			ConfirmedAt: next.ConfirmedAt, ExpiresAt: next.ExpiresAt, Deadline: next.Deadline,
			Now: now, ID: id, Version: version,
		})
		if isNoRows(err) {
			// The row is locked above, so this only happens if the locking is
			// ever removed; still, never overwrite silently.
			return staleFact(cur)
		}
		if err != nil {
			return fmt.Errorf("update: %w", err)
		}
		f = newFact(factRow(row))
		before["version"], after["version"] = cur.Version, f.Version
		if !timePtrEqual(cur.ForgetAt, f.ForgetAt) {
			before["forget_at"], after["forget_at"] = cur.ForgetAt, f.ForgetAt
		}
		if err := s.audit(ctx, q, auditEntry{
			actor: actor, action: "fact.update", targetType: "fact", targetID: strconv.FormatInt(id, 10),
			scope: f.Scope, before: before, after: after, reason: reason,
		}); err != nil {
			return err
		}
		// A fact moved to another key, category or durability meets the
		// facts of its new kind: the newest of them stays current.
		if cur.Key != f.Key || cur.Category != f.Category || cur.Durability != f.Durability ||
			!cur.ConfirmedAt.Equal(f.ConfirmedAt) {
			if _, err := s.supersede(ctx, q, actor, now, []int64{f.ID}); err != nil {
				return err
			}
			if f, err = factForUpdate(ctx, q, now, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Fact{}, fmt.Errorf("update fact: %w", err)
	}
	if locked != nil {
		s.reportLocked(actor, scope, locked)
		return Fact{}, locked
	}
	return f, nil
}

func applyFactChanges(f *Fact, ch FactChanges, now time.Time) {
	if ch.Content != nil {
		f.Content = *ch.Content
	}
	if ch.Key != nil {
		f.Key = *ch.Key
	}
	if ch.Durability != nil {
		f.Durability = *ch.Durability
	}
	if ch.Category != nil {
		f.Category = *ch.Category
	}
	if ch.Confidence != nil && *ch.Confidence != f.Confidence {
		f.Confidence = *ch.Confidence
		f.ConfirmedAt = now
	}
	if ch.Importance != nil {
		f.Importance = *ch.Importance
	}
	switch {
	case ch.Deadline != nil:
		f.Deadline = ch.Deadline
	case ch.ClearDeadline:
		f.Deadline = nil
	}
	switch {
	case ch.ExpiresAt != nil:
		f.ExpiresAt = ch.ExpiresAt
	case ch.ClearExpiresAt:
		f.ExpiresAt = nil
	}
}

// factDiff returns the changed editable fields of a fact, before and after.
func factDiff(a, b Fact) (before, after map[string]any) {
	before, after = map[string]any{}, map[string]any{}
	set := func(name string, x, y any) {
		before[name], after[name] = x, y
	}
	if a.Content != b.Content {
		set("content", a.Content, b.Content)
	}
	if a.Key != b.Key {
		set("key", a.Key, b.Key)
	}
	if a.Durability != b.Durability {
		set("durability", a.Durability, b.Durability)
	}
	if a.Category != b.Category {
		set("category", a.Category, b.Category)
	}
	if a.Confidence != b.Confidence {
		set("confidence", a.Confidence, b.Confidence)
	}
	if !a.ConfirmedAt.Equal(b.ConfirmedAt) {
		set("confirmed_at", a.ConfirmedAt, b.ConfirmedAt)
	}
	if a.Importance != b.Importance {
		set("importance", a.Importance, b.Importance)
	}
	if !timePtrEqual(a.Deadline, b.Deadline) {
		set("deadline", a.Deadline, b.Deadline)
	}
	if !timePtrEqual(a.ExpiresAt, b.ExpiresAt) {
		set("expires_at", a.ExpiresAt, b.ExpiresAt)
	}
	return before, after
}

func timePtrEqual(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

// checkNoHardening keeps automated actors from hardening a fact: no raised durability, no mood or state turned into another category.
func checkNoHardening(cur Fact, durability Durability, category string) error {
	if durabilityRank(durability) > durabilityRank(cur.Durability) {
		return &Error{Code: CodeForbidden, Field: "durability", Message: fmt.Sprintf(
			"fact %d is %s: an automated writer may not raise its durability to %s; only a reviewer can do that, in the console",
			cur.ID, cur.Durability, durability)}
	}
	if category != cur.Category && (cur.Category == CategoryMood || cur.Category == CategoryState) {
		return &Error{Code: CodeForbidden, Field: "category", Message: fmt.Sprintf(
			"fact %d is a %s: an automated writer may not turn it into %s (moods and states never harden); only a reviewer can do that, in the console",
			cur.ID, cur.Category, category)}
	}
	return nil
}

// checkNotDecisionFacts refuses edits of the facts behind decisions, which
// go through EditDecision so that the decision and its fact stay in step.
func checkNotDecisionFacts(ctx context.Context, q *queries.Queries, ids []int64) error {
	rows, err := q.DecisionsBackingFacts(ctx, ids)
	if err != nil {
		return fmt.Errorf("decisions of facts: %w", err)
	}
	switch len(rows) {
	case 0:
		return nil
	case 1:
		return Invalidf("id", "fact %d records decision %d: edit the decision instead, which keeps the two in step", rows[0].FactID, rows[0].ID)
	}
	facts := make([]int64, len(rows))
	for i, r := range rows {
		facts[i] = r.FactID
	}
	return Invalidf("ids", "facts %s record decisions: edit those decisions instead; nothing was changed", joinIDs(facts))
}

// lockedFact is a fact an automated actor may not touch, and its lock.
type lockedFact struct {
	fact Fact
	lock lockInfo
}

// lockInfo is the part of a locked decision a refusal reports.
type lockInfo struct {
	ID        int64
	Decision  string
	Reasoning string
}

// lockingDecision returns the lock on (scope, entity, key), or nil.
func lockingDecision(ctx context.Context, q *queries.Queries, scope string, entityID int64, key string) (*lockInfo, error) {
	row, err := q.LockingDecision(ctx, queries.LockingDecisionParams{Scope: scope, EntityID: entityID, Key: key})
	if isNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("decision lock: %w", err)
	}
	return &lockInfo{ID: row.ID, Decision: row.Decision, Reasoning: row.Reasoning}, nil
}

// rejectLocked logs one refused write against a locked decision: a row in
// consolidation_rejections (outside any run) and an open item in the review
// queue, written with q. The caller commits them, though the write itself is
// refused, and then calls reportLocked.
func (s *Store) rejectLocked(ctx context.Context, q *queries.Queries, actor Actor, d lockInfo, scope, content string, props map[string]any) (*Error, error) {
	props["actor"] = actor.String()
	raw, err := json.Marshal(props)
	if err != nil {
		return nil, fmt.Errorf("rejection properties: %w", err)
	}
	_, err = q.InsertWriteRejection(ctx, queries.InsertWriteRejectionParams{
		Scope: scope, Reason: "decision_locked", Source: rejectionSource(actor), Content: content,
		Properties: raw, DecisionID: &d.ID, CreatedAt: s.Now(),
	})
	if err != nil {
		return nil, fmt.Errorf("log refusal: %w", err)
	}
	return lockedError(LockedDecision{ID: d.ID, Decision: d.Decision, Reasoning: d.Reasoning}), nil
}

// reportLocked logs and counts a refusal once its rejection row is committed.
func (s *Store) reportLocked(actor Actor, scope string, l *Error) {
	s.logger.Warn("decision_locked", slog.String("scope", scope),
		slog.Int64("decision_id", l.Locked.ID), slog.String("actor", actor.String()))
	s.metrics.Rejected(0, "decision_locked")
}

// rejectLockedFacts refuses a bulk change by an automated actor that touches
// facts on a locked decision's key: one rejection per such fact.
func (s *Store) rejectLockedFacts(ctx context.Context, q *queries.Queries, actor Actor, facts []Fact, action string) ([]lockedFact, error) {
	if !actor.Automated() {
		return nil, nil
	}
	ids := make([]int64, len(facts))
	byID := make(map[int64]Fact, len(facts))
	for i, f := range facts {
		ids[i] = f.ID
		byID[f.ID] = f
	}
	rows, err := q.LockingDecisionsForFacts(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("decision locks: %w", err)
	}
	out := make([]lockedFact, 0, len(rows))
	for _, r := range rows {
		f := byID[r.FactID]
		d := lockInfo{ID: r.DecisionID, Decision: r.Decision, Reasoning: r.Reasoning}
		if _, err := s.rejectLocked(ctx, q, actor, d, f.Scope, f.Content, map[string]any{
			"action": action, "fact_id": f.ID, "entity": f.Entity, "key": f.Key,
		}); err != nil {
			return nil, err
		}
		out = append(out, lockedFact{fact: f, lock: d})
	}
	return out, nil
}

// lockFacts locks the facts with ids for a bulk change and reports the ones
// that do not exist.
func lockFacts(ctx context.Context, q *queries.Queries, now time.Time, ids []int64) ([]Fact, error) {
	rows, err := q.FactsByIDForUpdate(ctx, queries.FactsByIDForUpdateParams{Now: now, Ids: ids})
	if err != nil {
		return nil, fmt.Errorf("facts: %w", err)
	}
	facts := newFacts(rows)
	if len(facts) == len(ids) {
		return facts, nil
	}
	var missing []int64
	for _, id := range ids {
		if !slices.ContainsFunc(facts, func(f Fact) bool { return f.ID == id }) {
			missing = append(missing, id)
		}
	}
	if len(missing) == 1 {
		return nil, NotFoundf("no fact with id %d; nothing was changed", missing[0])
	}
	return nil, NotFoundf("no facts with ids %s; nothing was changed", joinIDs(missing))
}

// bulk runs one bulk change of facts: it validates the ids, locks the facts
// (all must exist), refuses automated actors on locked keys, runs check and
// then apply, all in one transaction.
func (s *Store) bulk(ctx context.Context, actor Actor, ids []int64, action string,
	check func(q *queries.Queries, facts []Fact) error,
	apply func(q *queries.Queries, ids []int64, now time.Time) (int, error)) (int, error) {
	ids, err := parseIDs(ids)
	if err != nil {
		return 0, err
	}
	now := s.Now()
	var (
		n      int
		locked []lockedFact
	)
	err = s.tx(ctx, func(q *queries.Queries, _ pgx.Tx) error {
		facts, err := lockFacts(ctx, q, now, ids)
		if err != nil {
			return err
		}
		if locked, err = s.rejectLockedFacts(ctx, q, actor, facts, action); err != nil || len(locked) > 0 {
			return err
		}
		if check != nil {
			if err := check(q, facts); err != nil {
				return err
			}
		}
		n, err = apply(q, ids, now)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", action, err)
	}
	if len(locked) > 0 {
		for _, l := range locked[1:] {
			s.reportLocked(actor, l.fact.Scope, lockedError(LockedDecision{ID: l.lock.ID}))
		}
		first := lockedError(LockedDecision{ID: locked[0].lock.ID, Decision: locked[0].lock.Decision, Reasoning: locked[0].lock.Reasoning})
		s.reportLocked(actor, locked[0].fact.Scope, first)
		return 0, first
	}
	return n, nil
}

// ReclassifyFacts moves the facts with ids to durability and/or category
// (nil leaves each fact's own) in one transaction, with one audit row per
// changed fact. It returns how many facts changed; facts already there are
// left alone. Unknown ids fail the whole change (CodeNotFound, naming them).
// Decisions' facts are refused, as is category decision; automated actors
// may not raise durability, change a mood's or state's category, or touch
// facts on a locked decision's key.
func (s *Store) ReclassifyFacts(ctx context.Context, actor Actor, ids []int64, durability *Durability, category *string, reason string) (int, error) {
	if durability == nil && category == nil {
		return 0, Invalidf("durability", "nothing to change: choose a durability, a category or both")
	}
	if durability != nil {
		if _, err := ParseDurability(string(*durability)); err != nil {
			return 0, err
		}
	}
	if category != nil {
		if _, err := ParseCategory(*category); err != nil {
			return 0, err
		}
		if *category == CategoryDecision {
			return 0, errDecisionCategory()
		}
	}
	reason, err := parseReason(reason)
	if err != nil {
		return 0, err
	}
	return s.bulk(ctx, actor, ids, "fact.reclassify",
		func(q *queries.Queries, facts []Fact) error {
			if err := checkNotDecisionFacts(ctx, q, ids); err != nil {
				return err
			}
			if !actor.Automated() {
				return nil
			}
			for _, f := range facts {
				d, c := f.Durability, f.Category
				if durability != nil {
					d = *durability
				}
				if category != nil {
					c = *category
				}
				if err := checkNoHardening(f, d, c); err != nil {
					return err
				}
			}
			return nil
		},
		func(q *queries.Queries, ids []int64, now time.Time) (int, error) {
			var d *string
			if durability != nil {
				d = pointerTo(string(*durability))
			}
			rows, err := q.ReclassifyFactsByID(ctx, queries.ReclassifyFactsByIDParams{
				Now: now, Ids: ids, Durability: d, Category: category, Actor: actor.String(), Reason: reason,
			})
			return len(rows), err
		})
}

// ArchiveFacts archives the active facts with ids (status archived, never
// deleted) in one transaction, with one audit row per fact, and returns how
// many it archived; facts already archived are left alone. reason becomes
// each fact's archive_reason ("archived by <actor>" when empty). Unknown ids
// fail the whole change.
func (s *Store) ArchiveFacts(ctx context.Context, actor Actor, ids []int64, reason string) (int, error) {
	reason, err := parseReason(reason)
	if err != nil {
		return 0, err
	}
	archiveReason := reason
	if archiveReason == "" {
		archiveReason = "archived by " + actor.String()
	}
	return s.bulk(ctx, actor, ids, "fact.archive", nil,
		func(q *queries.Queries, ids []int64, now time.Time) (int, error) {
			rows, err := q.ArchiveFactsByID(ctx, queries.ArchiveFactsByIDParams{
				Now: now, ArchiveReason: archiveReason, Ids: ids, Actor: actor.String(), Reason: reason,
			})
			return len(rows), err
		})
}

// RestoreFacts makes the archived facts with ids active again in one
// transaction, with one audit row per fact, and returns how many it
// restored; active facts are left alone. Restoring is a reviewer's
// confirmation: a fact whose forget_at has already passed is re-confirmed
// (confirmed_at = now, so it decays afresh from its stored confidence) and a
// passed expires_at is cleared, or the next decay tick would archive it again.
// Unknown ids fail the whole change.
func (s *Store) RestoreFacts(ctx context.Context, actor Actor, ids []int64, reason string) (int, error) {
	reason, err := parseReason(reason)
	if err != nil {
		return 0, err
	}
	return s.bulk(ctx, actor, ids, "fact.restore", nil,
		func(q *queries.Queries, ids []int64, now time.Time) (int, error) {
			rows, err := q.RestoreFactsByID(ctx, queries.RestoreFactsByIDParams{
				Now: now, Ids: ids, Actor: actor.String(), Reason: reason,
			})
			return len(rows), err
		})
}

// AuditRecord is one row of a row's history.
type AuditRecord struct {
	ID     int64           `json:"id"`
	At     time.Time       `json:"at"`
	Actor  string          `json:"actor"` // e.g. user:ann@example.com, token:laptop, system:consolidation
	Action string          `json:"action"`
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
	Reason string          `json:"reason"`
}

// FactHistory returns the audit rows of the fact with id, newest first.
func (s *Store) FactHistory(ctx context.Context, id int64) ([]AuditRecord, error) {
	if _, err := s.GetFact(ctx, id); err != nil {
		return nil, err
	}
	return s.history(ctx, "fact", id)
}

func (s *Store) history(ctx context.Context, targetType string, id int64) ([]AuditRecord, error) {
	rows, err := s.q.ListAuditForTarget(ctx, queries.ListAuditForTargetParams{
		TargetType: targetType, TargetID: strconv.FormatInt(id, 10),
	})
	if err != nil {
		return nil, fmt.Errorf("%s %d history: %w", targetType, id, err)
	}
	out := make([]AuditRecord, len(rows))
	for i, r := range rows {
		out[i] = AuditRecord{ID: r.ID, At: r.At, Actor: r.Actor, Action: r.Action, Before: r.Before, After: r.After, Reason: r.Reason}
	}
	return out, nil
}
