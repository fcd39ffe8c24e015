package moving

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tenurehq/tenure/memory"
)

// Mem0 keeps loose sentences ("Is a vegetarian", "Feeling stressed about
// the launch today") with the user, agent or run they belong to. Its
// get_all answers {"results": [memory, ...]} (older versions a bare list);
// each memory has an id, its text in memory, user_id, agent_id and run_id,
// free-form metadata, Mem0's own categories, created_at and updated_at.
//
// Each memory becomes one working row, never a fact directly: the offline
// classifier gives it its two axes (and a key, a deadline, a decision's
// alternatives and reasoning), as extraction does for the rows it stores,
// and consolidation then decides, through its usual gates, what becomes a
// fact. A passing memory - one the classifier finds ephemeral, such as a
// mood or a status line - is marked transient when Mem0 last touched it
// within the hour, and expired when it is older: either way consolidation
// refuses it and says so, and it never hardens into a fact. Every other row
// carries no marker and reads as durable. Each row is observed when Mem0
// last touched the memory (updated_at, else created_at): its fact ages from
// then, not from the import, and of two memories on one attribute the one
// Mem0 touched last is current. Mem0's id, owners, categories, metadata and
// times are also kept in the row's metadata.

// mem0MaxText is the most characters a working row holds.
const mem0MaxText = 10000

// mem0MaxEntity is the most characters of an entity name.
const mem0MaxEntity = 200

// PassingWindow is how recently Mem0 must have touched a passing memory for
// it to be pushed transient rather than expired: a transient row is kept
// at most this long by consolidation's cleanup.
const PassingWindow = time.Hour

// Mem0Memory is one memory of Mem0's get_all.
type Mem0Memory struct {
	// Path is where the memory lies in the file: results[3], or [3] in a
	// bare list.
	Path                   string
	ID                     string
	Text                   string
	UserID, AgentID, RunID string
	Metadata               map[string]any
	Categories             []string
	CreatedAt, UpdatedAt   *time.Time
}

// label names the memory in messages: its path and Mem0's id.
func (m Mem0Memory) label() string {
	if m.ID == "" {
		return m.Path
	}
	return fmt.Sprintf("%s (Mem0 id %s)", m.Path, m.ID)
}

// ReadMem0 reads the JSON of Mem0's get_all: an object whose results list
// holds the memories (its other keys, such as relations, are ignored), or a
// bare list of memories. Malformed JSON, an item that is not a memory, a
// memory without text or with a field of the wrong type is an error
// naming the item (results[3]) and what is wrong. It holds every memory:
// StreamMem0 reads one at a time.
func ReadMem0(r io.Reader) ([]Mem0Memory, error) {
	var out []Mem0Memory
	for m, err := range StreamMem0(r) {
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// errStopped ends a read whose consumer stopped asking for memories.
var errStopped = errors.New("stopped")

// StreamMem0 reads the JSON of Mem0's get_all as ReadMem0 does, one memory
// at a time: each item of the list is decoded, checked and handed on before
// the next is read, so that memory holds one item, whatever the size of the
// file. The first problem, in the order of the file, ends the sequence: it
// is yielded as the error, with the memories before it already handed on.
// A file whose end is broken (truncated, or followed by more JSON) thus
// yields its good memories first, then the error.
func StreamMem0(r io.Reader) iter.Seq2[Mem0Memory, error] {
	return func(yield func(Mem0Memory, error) bool) {
		if err := streamMem0(r, yield); err != nil && err != errStopped {
			yield(Mem0Memory{}, err)
		}
	}
}

func streamMem0(r io.Reader, yield func(Mem0Memory, error) bool) error {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	tok, err := dec.Token()
	if err != nil {
		return mem0SyntaxError(dec, "", err)
	}
	n := 0
	switch tok {
	case json.Delim('['):
		if n, err = streamMem0List(dec, "", yield); err != nil {
			return err
		}
	case json.Delim('{'):
		found := false
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return mem0SyntaxError(dec, "", err)
			}
			if key != "results" {
				if err := skipJSON(dec); err != nil {
					return mem0SyntaxError(dec, fmt.Sprint(key), err)
				}
				continue
			}
			if found {
				return errors.New("the object holds two results lists: give one get_all answer per file")
			}
			found = true
			open, err := dec.Token()
			if err != nil {
				return mem0SyntaxError(dec, "results", err)
			}
			if open != json.Delim('[') {
				return fmt.Errorf("results must be the list of memories Mem0's get_all returns, not %s", tokenKind(open))
			}
			if n, err = streamMem0List(dec, "results", yield); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return mem0SyntaxError(dec, "", err)
		}
		if !found {
			return errors.New(`the object has no results list: give the JSON of Mem0's get_all ({"results": [...]}) or a list of memories`)
		}
	default:
		return fmt.Errorf(`the file holds %s: give the JSON of Mem0's get_all ({"results": [...]}) or a list of memories`, tokenKind(tok))
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("more JSON follows the memories at byte %d: give one get_all answer per file", dec.InputOffset())
	}
	if n == 0 {
		return errors.New("the file holds no memories: the list is empty")
	}
	return nil
}

// streamMem0List reads the items of a list whose '[' was read, up to its
// ']', handing each memory to yield, and says how many there were.
func streamMem0List(dec *json.Decoder, prefix string, yield func(Mem0Memory, error) bool) (int, error) {
	i := 0
	for ; dec.More(); i++ {
		path := fmt.Sprintf("%s[%d]", prefix, i)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return i, mem0SyntaxError(dec, path, err)
		}
		m, err := parseMem0(path, raw)
		if err != nil {
			return i, err
		}
		if !yield(m, nil) {
			return i, errStopped
		}
	}
	if _, err := dec.Token(); err != nil {
		return i, mem0SyntaxError(dec, prefix, err)
	}
	return i, nil
}

// skipJSON reads past one value, token by token, so that a large value
// beside the memories (relations) is never held whole.
func skipJSON(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// mem0SyntaxError says where the JSON broke: in which item, at which byte.
func mem0SyntaxError(dec *json.Decoder, path string, err error) error {
	where := ""
	if path != "" {
		where = path + ": "
	}
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("%snot valid JSON: %v (at byte %d of the file)", where, syntax, syntax.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fmt.Errorf("%snot valid JSON: the file ends before the JSON is complete (after %d bytes)", where, dec.InputOffset())
	}
	return fmt.Errorf("%sthe file could not be read: %w", where, err)
}

func tokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			return "a list"
		}
		return "an object"
	case string:
		return "text"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// parseMem0 reads one memory.
func parseMem0(path string, raw json.RawMessage) (Mem0Memory, error) {
	m := Mem0Memory{Path: path}
	if err := memory.CheckDocument(raw); err != nil {
		return m, fmt.Errorf("%s: %v", path, err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return m, fmt.Errorf("%s: not valid JSON: %v", path, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return m, fmt.Errorf("%s is %s, not a memory: each item is an object with id, memory, user_id, metadata, created_at, ...", path, jsonKind(v))
	}
	str := func(key string) (string, error) {
		switch x := obj[key].(type) {
		case nil:
			return "", nil
		case string:
			return x, nil
		case float64:
			if key == "id" || strings.HasSuffix(key, "_id") {
				return strconv.FormatFloat(x, 'f', -1, 64), nil
			}
		}
		return "", fmt.Errorf("%s: %s must be text, not %s", path, key, jsonKind(obj[key]))
	}
	var err error
	if m.ID, err = str("id"); err != nil {
		return m, err
	}
	if m.Text, err = str("memory"); err != nil {
		return m, fmt.Errorf("%s: %s must be the memory's text, not %s", path, "memory", jsonKind(obj["memory"]))
	}
	if strings.TrimSpace(m.Text) == "" {
		what := "its memory field is empty"
		if _, ok := obj["memory"]; !ok {
			what = "it has no memory field"
		}
		return m, fmt.Errorf("%s: the memory has no text (%s): every Mem0 memory holds its sentence in memory", m.label(), what)
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"user_id", &m.UserID}, {"agent_id", &m.AgentID}, {"run_id", &m.RunID}} {
		if *f.dst, err = str(f.key); err != nil {
			return m, err
		}
		*f.dst = strings.TrimSpace(*f.dst)
	}
	switch md := obj["metadata"].(type) {
	case nil:
	case map[string]any:
		m.Metadata = md
	default:
		return m, fmt.Errorf("%s: metadata must be an object, not %s", m.label(), jsonKind(md))
	}
	switch cs := obj["categories"].(type) {
	case nil:
	case []any:
		for i, c := range cs {
			s, ok := c.(string)
			if !ok {
				return m, fmt.Errorf("%s: categories[%d] must be text, not %s", m.label(), i, jsonKind(c))
			}
			m.Categories = append(m.Categories, s)
		}
	default:
		return m, fmt.Errorf("%s: categories must be a list of texts, not %s", m.label(), jsonKind(cs))
	}
	for _, f := range []struct {
		key string
		dst **time.Time
	}{{"created_at", &m.CreatedAt}, {"updated_at", &m.UpdatedAt}} {
		s, err := str(f.key)
		if err != nil {
			return m, err
		}
		if *f.dst, err = parseMem0Time(s); err != nil {
			return m, fmt.Errorf("%s: %s %q is not a time: use ISO 8601, as Mem0 writes it (2026-05-01T09:30:00.123456-07:00)", m.label(), f.key, s)
		}
	}
	return m, nil
}

// mem0TimeLayouts are the forms Mem0 writes its times in; one without a
// zone is read as UTC.
var mem0TimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
}

func parseMem0Time(s string) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	for _, layout := range mem0TimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, errors.New("not a time")
}

// Mem0Options say where Mem0's memories go: to one scope, or to one scope
// per user.
type Mem0Options struct {
	// Scope is the scope every memory goes to.
	Scope string
	// ScopePerUser puts each user's memories in a scope named after the
	// user id (ScopeForUser); every memory must then have a user_id.
	ScopePerUser bool
	// DryRun reads and classifies everything and reports what would be
	// pushed, pushing nothing.
	DryRun bool
	// Progress, when set, is told after each batch how many rows were
	// pushed, and of how many: Total, or -1 when Total is not given.
	Progress func(done, total int)
	// Total, when above zero, is how many memories the input holds (a first
	// pass over the file counted them), for Progress.
	Total int
}

// Mem0Row is one memory as it is pushed: its scope, its classification
// and marker, and the working row itself.
type Mem0Row struct {
	Memory     Mem0Memory
	Scope      string
	Durability memory.Durability
	Category   string
	Key        string
	// Marker is the row's marker as it reads: transient or expired for a
	// passing memory (written), durable otherwise (not written: a row
	// without a marker reads as durable).
	Marker memory.Marker
	Reason string
	Node   memory.NewNode
}

var nonScope = regexp.MustCompile(`[^a-z0-9_.:-]+`)

// ScopeForUser makes a Mem0 user id into a scope name: lowercased, each run
// of characters a scope may not hold turned into '-', leading characters
// other than a letter or digit dropped ("Alex@Example.com" becomes
// alex-example.com). An id that leaves no letter or digit, or a name longer
// than 63 characters, is refused: name the scope with --scope instead.
func ScopeForUser(userID string) (string, error) {
	s := nonScope.ReplaceAllString(strings.ToLower(strings.TrimSpace(userID)), "-")
	s = strings.TrimLeft(s, "_.:-")
	s = strings.TrimRight(s, "-")
	if s == "" {
		return "", fmt.Errorf("user_id %q holds no letter or digit a scope name may use (a-z, 0-9): import these memories with --scope", userID)
	}
	if n := len(s); n > 63 {
		return "", fmt.Errorf("user_id %q makes a scope name of %d characters (%s): at most 63 are allowed; import these memories with --scope", userID, n, s)
	}
	if _, err := memory.ParseScope(s); err != nil {
		return "", fmt.Errorf("user_id %q makes no valid scope name: %v", userID, err)
	}
	return s, nil
}

// PlanMem0 classifies every memory and builds its working row, checking
// everything the engine will check of it, so that a push fails only for a
// reason of the database. now is the time of the import; a memory's
// relative dates ("tomorrow") are read from when it was observed
// (observedAt).
func PlanMem0(mems []Mem0Memory, opts Mem0Options, now time.Time) ([]Mem0Row, error) {
	p, err := newMem0Planner(opts, now)
	if err != nil {
		return nil, err
	}
	rows := make([]Mem0Row, len(mems))
	for i, m := range mems {
		if rows[i], err = p.plan(m); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// PlanMem0Stream is PlanMem0 over a stream of memories (StreamMem0): each
// is planned as it comes and handed on. The first error, of the options,
// of the stream or of a memory, ends the sequence.
func PlanMem0Stream(mems iter.Seq2[Mem0Memory, error], opts Mem0Options, now time.Time) iter.Seq2[Mem0Row, error] {
	return func(yield func(Mem0Row, error) bool) {
		p, err := newMem0Planner(opts, now)
		if err != nil {
			yield(Mem0Row{}, err)
			return
		}
		for m, err := range mems {
			var r Mem0Row
			if err == nil {
				r, err = p.plan(m)
			}
			if !yield(r, err) || err != nil {
				return
			}
		}
	}
}

// CheckMem0 checks a stream of memories (StreamMem0) as PlanMem0Stream
// plans them, without classifying them: it refuses what the plan refuses,
// in the same words, at a fraction of the cost (the classifier is most of
// a plan's work), so that a file can be checked whole before an import
// opens a database. Each memory is handed on once checked; the first
// error ends the sequence.
func CheckMem0(mems iter.Seq2[Mem0Memory, error], opts Mem0Options) iter.Seq2[Mem0Memory, error] {
	return func(yield func(Mem0Memory, error) bool) {
		p, err := newMem0Planner(opts, time.Time{})
		if err != nil {
			yield(Mem0Memory{}, err)
			return
		}
		p.checkOnly = true
		for m, err := range mems {
			if err == nil {
				_, err = p.plan(m)
			}
			if !yield(m, err) || err != nil {
				return
			}
		}
	}
}

// mem0Planner plans memories one at a time, remembering which user id each
// scope it gave was made of.
type mem0Planner struct {
	scope   string
	perUser bool
	now     time.Time
	owners  map[string]string // scope → the user id it was made of
	scopes  map[string]string // user id → its scope
	// checkOnly checks each memory (checkMem0 and its metadata) without
	// classifying it or building its row.
	checkOnly bool
}

func newMem0Planner(opts Mem0Options, now time.Time) (*mem0Planner, error) {
	scope := strings.TrimSpace(opts.Scope)
	switch {
	case scope != "" && opts.ScopePerUser:
		return nil, memory.Invalidf("scope", "give either a scope for every memory (--scope) or one scope per user (--scope-per-user), not both")
	case scope == "" && !opts.ScopePerUser:
		return nil, memory.Invalidf("scope", "name the Tenure scope Mem0's memories go to (--scope), or put each user's in a scope of its own (--scope-per-user)")
	case scope != "":
		if _, err := memory.ParseScope(scope); err != nil {
			return nil, err
		}
	}
	return &mem0Planner{scope: scope, perUser: opts.ScopePerUser, now: now, owners: map[string]string{}, scopes: map[string]string{}}, nil
}

// plan gives one memory its scope, then classifies it and builds its row
// (or, checkOnly, checks it).
func (p *mem0Planner) plan(m Mem0Memory) (Mem0Row, error) {
	r := Mem0Row{Memory: m, Scope: p.scope}
	if p.perUser {
		if m.UserID == "" {
			return r, fmt.Errorf("%s has no user_id: --scope-per-user puts each user's memories in the user's scope; import memories of agents or runs alone with --scope", m.label())
		}
		s, ok := p.scopes[m.UserID]
		if !ok {
			var err error
			if s, err = ScopeForUser(m.UserID); err != nil {
				return r, fmt.Errorf("%s: %w", m.label(), err)
			}
			if other, ok := p.owners[s]; ok {
				return r, fmt.Errorf("user_ids %q and %q both make scope %s: --scope-per-user cannot keep them apart; import them with --scope", other, m.UserID, s)
			}
			p.owners[s], p.scopes[m.UserID] = m.UserID, s
		}
		r.Scope = s
	}
	var err error
	if p.checkOnly {
		if _, _, err = checkMem0(m); err == nil {
			err = memory.CheckJSON("metadata", mem0Metadata(m, ""))
		}
	} else {
		err = classifyMem0(&r, p.now)
	}
	if err != nil {
		return r, fmt.Errorf("%s: %w", m.label(), err)
	}
	return r, nil
}

// classifyMem0 gives r its axes, marker and working row.
func classifyMem0(r *Mem0Row, now time.Time) error {
	m := r.Memory
	text, entity, err := checkMem0(m)
	if err != nil {
		return err
	}
	said := now
	observed := observedAt(m)
	if observed != nil {
		said = *observed
	}
	c := memory.Classify(text, said)
	r.Durability, r.Category, r.Key, r.Reason = memory.ClampDurability(c.Category, c.Durability), c.Category, c.Key, c.Reason
	if r.Durability != c.Durability {
		r.Reason += fmt.Sprintf(" (durability %s lowered to %s: a %s never hardens)", c.Durability, r.Durability, c.Category)
	}
	r.Marker = memory.MarkerDurable
	if r.Durability == memory.Ephemeral {
		last := m.UpdatedAt
		if last == nil {
			last = m.CreatedAt
		}
		r.Marker = memory.MarkerTransient
		if last != nil && now.Sub(*last) > PassingWindow {
			r.Marker = memory.MarkerExpired
		}
	}

	props := memory.RowAxes{Entity: entity, Key: r.Key, Category: r.Category, Durability: string(r.Durability),
		Deadline: c.Deadline, Alternatives: c.Alternatives, Reasoning: c.Reasoning}.Properties()
	meta := mem0Metadata(m, r.Reason)
	if err := memory.CheckJSON("metadata", meta); err != nil {
		return err
	}
	r.Node = memory.NewNode{Content: text, Metadata: meta, Properties: props, ObservedAt: observed}
	if r.Marker != memory.MarkerDurable {
		r.Node.Durability = string(r.Marker)
	}
	return nil
}

// observedAt is when a memory was observed, as far as Mem0 says: when it
// last touched it (updated_at), else when it made it (created_at).
func observedAt(m Mem0Memory) *time.Time {
	if m.UpdatedAt != nil {
		return m.UpdatedAt
	}
	return m.CreatedAt
}

// checkMem0 checks what a memory's row can be refused for besides its
// classification: its text and its owner, the entity the row names. It
// returns both.
func checkMem0(m Mem0Memory) (text, entity string, err error) {
	text = strings.TrimSpace(m.Text)
	if err := memory.CheckText("memory", text); err != nil {
		return "", "", err
	}
	if n := utf8.RuneCountInString(text); n > mem0MaxText {
		return "", "", fmt.Errorf("the memory is %d characters long: a working row holds at most %d", n, mem0MaxText)
	}
	entity = m.UserID
	if entity == "" {
		entity = m.AgentID
	}
	if n := utf8.RuneCountInString(entity); n > mem0MaxEntity {
		return "", "", fmt.Errorf("its owner %q is %d characters long: an entity name is at most %d", entity, n, mem0MaxEntity)
	}
	return text, entity, nil
}

// mem0Metadata is the metadata of a memory's row: where it came from, why
// it was classified as it was, and Mem0's fields.
func mem0Metadata(m Mem0Memory, reason string) map[string]any {
	meta := map[string]any{"source": "mem0", "classified_by": "offline", "reason": reason}
	for k, v := range map[string]string{"mem0_id": m.ID, "user_id": m.UserID, "agent_id": m.AgentID, "run_id": m.RunID} {
		if v != "" {
			meta[k] = v
		}
	}
	if len(m.Categories) > 0 {
		meta["mem0_categories"] = m.Categories
	}
	if len(m.Metadata) > 0 {
		meta["mem0_metadata"] = m.Metadata
	}
	if m.CreatedAt != nil {
		meta["mem0_created_at"] = m.CreatedAt.Format(time.RFC3339Nano)
	}
	if m.UpdatedAt != nil {
		meta["mem0_updated_at"] = m.UpdatedAt.Format(time.RFC3339Nano)
	}
	return meta
}

// Pusher is the engine's push door, as a Mem0 import uses it; a
// *memory.Store is one.
type Pusher interface {
	PushStream(ctx context.Context, actor memory.Actor, batches iter.Seq2[memory.PushBatch, error], opts memory.PushStreamOptions) error
}

// Mem0Report is what a Mem0 import pushed (or, in a dry run, would push)
// and how it classified it.
type Mem0Report struct {
	DryRun bool `json:"dry_run"`
	// Memories is how many memories the file holds; Rows how many working
	// rows were pushed (all of them, or none).
	Memories int `json:"memories"`
	Rows     int `json:"rows"`
	// Batches is how many pushes carried them (at most memory.MaxPushBatch
	// rows each, one scope each).
	Batches int `json:"batches"`
	// Scopes counts the rows by scope.
	Scopes map[string]int `json:"scopes"`
	// ByDurability, ByCategory and ByMarker count the rows by the axes the
	// classifier gave them and by their marker (durable: no marker written).
	ByDurability map[string]int `json:"by_durability"`
	ByCategory   map[string]int `json:"by_category"`
	ByMarker     map[string]int `json:"by_marker"`
	// Notes counts the push notes by code: rows that repeat a live fact
	// (duplicate), name a locked decision's key (decision_locked) or were
	// observed so long ago that their fact is already forgotten
	// (forgotten).
	Notes map[string]int `json:"notes"`
	// Forgotten lists, memory by memory, those observed so long ago that
	// the fact each becomes is already past its forget date: they are
	// pushed like the others, and consolidation promotes each and the decay
	// job archives it as decayed at once (kept, restorable, never recited).
	// A dry run lists them too. At most mem0MaxListed are listed; Notes
	// counts them all.
	Forgotten []Mem0Forgotten `json:"forgotten"`
	// Atomicity says how the pushes behave when one fails.
	Atomicity string `json:"atomicity"`
}

// Mem0Forgotten is a memory whose fact is already past its forget date.
type Mem0Forgotten struct {
	// Memory names it: its place in the file and Mem0's id.
	Memory     string    `json:"memory"`
	Scope      string    `json:"scope"`
	Text       string    `json:"text"`
	ObservedAt time.Time `json:"observed_at"`
	ForgetAt   time.Time `json:"forget_at"`
}

// mem0MaxListed is how many forgotten memories a report lists.
const mem0MaxListed = 1000

// ImportMem0 pushes rows (from PlanMem0) through p, as ImportMem0Stream
// pushes a stream of them.
func ImportMem0(ctx context.Context, p Pusher, actor memory.Actor, rows []Mem0Row, opts Mem0Options) (Mem0Report, error) {
	if len(rows) == 0 {
		return Mem0Report{}, errNoMemories
	}
	opts.Total = len(rows)
	return ImportMem0Stream(ctx, p, actor, func(yield func(Mem0Row, error) bool) {
		for _, r := range rows {
			if !yield(r, nil) {
				return
			}
		}
	}, opts)
}

var errNoMemories = errors.New("no memories to push: the file holds none")

// mem0MaxHeld is the most rows an import holds while it gathers batches:
// rows wait in a batch of their scope until it is full (memory.MaxPushBatch
// rows) or the file ends, and when more than this many wait, across
// scopes, the fullest batch goes early.
const mem0MaxHeld = 10 * memory.MaxPushBatch

// ImportMem0Stream pushes rows (from PlanMem0Stream) through p as they come,
// in batches of at most memory.MaxPushBatch rows of one scope, all in one
// transaction: every row is written or none, and no consolidation run sees
// part of the import. A batch goes when it is full, so that at most a few
// thousand rows are held whatever the size of the file; rows of one scope
// keep their order. A dry run checks and notes every row as the push
// would, then writes nothing. An error of the stream (a memory the reader
// or the plan refuses) ends the import, and nothing is written.
func ImportMem0Stream(ctx context.Context, p Pusher, actor memory.Actor, rows iter.Seq2[Mem0Row, error], opts Mem0Options) (Mem0Report, error) {
	rep := Mem0Report{DryRun: opts.DryRun, Scopes: map[string]int{},
		ByDurability: map[string]int{}, ByCategory: map[string]int{}, ByMarker: map[string]int{}, Notes: map[string]int{},
		Forgotten: []Mem0Forgotten{}}
	var (
		order   []string                 // scopes with rows waiting, in the order they began waiting
		waiting = map[string][]Mem0Row{} // by scope
		held    int                      // rows waiting
		sent    []Mem0Row                // the rows of the batch last handed on
		srcErr  error                    // the stream's error
		pushed  int                      // rows written, not yet committed
	)
	send := func(scope string, yield func(memory.PushBatch, error) bool) bool {
		batch := waiting[scope]
		delete(waiting, scope)
		order = slices.DeleteFunc(order, func(s string) bool { return s == scope })
		held -= len(batch)
		sent = batch
		rep.Batches++
		b := memory.PushBatch{Scope: scope, Nodes: make([]memory.NewNode, len(batch))}
		for i, r := range batch {
			b.Nodes[i] = r.Node
		}
		return yield(b, nil)
	}
	batches := func(yield func(memory.PushBatch, error) bool) {
		for r, err := range rows {
			if err != nil {
				srcErr = err
				yield(memory.PushBatch{}, err)
				return
			}
			rep.Memories++
			rep.Scopes[r.Scope]++
			rep.ByDurability[string(r.Durability)]++
			rep.ByCategory[r.Category]++
			rep.ByMarker[string(r.Marker)]++
			if _, ok := waiting[r.Scope]; !ok {
				order = append(order, r.Scope)
			}
			waiting[r.Scope] = append(waiting[r.Scope], r)
			held++
			switch {
			case len(waiting[r.Scope]) == memory.MaxPushBatch:
				if !send(r.Scope, yield) {
					return
				}
			case held > mem0MaxHeld:
				fullest := order[0]
				for _, s := range order {
					if len(waiting[s]) > len(waiting[fullest]) {
						fullest = s
					}
				}
				if !send(fullest, yield) {
					return
				}
			}
		}
		for len(order) > 0 {
			if !send(order[0], yield) {
				return
			}
		}
	}
	err := p.PushStream(ctx, actor, batches, memory.PushStreamOptions{DryRun: opts.DryRun,
		Pushed: func(i int, r memory.PushResult) error {
			for _, n := range r.Notes {
				rep.Notes[n.Code]++
				if n.Code == memory.NoteForgotten && n.ForgetAt != nil && n.Row < len(sent) && len(rep.Forgotten) < mem0MaxListed {
					row := sent[n.Row]
					rep.Forgotten = append(rep.Forgotten, Mem0Forgotten{Memory: row.Memory.label(), Scope: row.Scope,
						Text: row.Node.Content, ObservedAt: *row.Node.ObservedAt, ForgetAt: *n.ForgetAt})
				}
			}
			pushed += len(r.IDs)
			if opts.Progress != nil {
				total := -1
				if opts.Total > 0 {
					total = max(opts.Total, rep.Memories)
				}
				opts.Progress(pushed, total)
			}
			return nil
		}})
	rep.Atomicity = "one batch, one transaction: all or nothing"
	if rep.Batches > 1 {
		rep.Atomicity = fmt.Sprintf("%d batches of at most %d rows of one scope, in one transaction: all or nothing",
			rep.Batches, memory.MaxPushBatch)
	}
	if srcErr != nil {
		return rep, fmt.Errorf("%w; nothing was written", srcErr)
	}
	if err != nil {
		if e := memory.AsError(err); e != nil && e.Field == "batches" && rep.Batches == 0 {
			return rep, errNoMemories
		}
		return rep, fmt.Errorf("%w; nothing was written", pushError(err, sent, rep.Batches-1))
	}
	rep.Rows = pushed
	return rep, nil
}

var batchField = regexp.MustCompile(`^batches\[(\d+)\](?:\.nodes\[(\d+)\])?`)

// pushError names the memory behind a row the engine refused: a row of
// batch, the batch handed on last, whose index is last.
func pushError(err error, batch []Mem0Row, last int) error {
	e := memory.AsError(err)
	if e == nil {
		return err
	}
	m := batchField.FindStringSubmatch(e.Field)
	if m == nil {
		return err
	}
	if bi, _ := strconv.Atoi(m[1]); bi != last {
		return err
	}
	i := 0
	if m[2] != "" {
		i, _ = strconv.Atoi(m[2])
	} else if len(batch) != 1 {
		return err
	}
	if i >= len(batch) {
		return err
	}
	return fmt.Errorf("%s: %w", batch[i].Memory.label(), err)
}
