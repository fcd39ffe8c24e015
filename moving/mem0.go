package moving

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// carries no marker and reads as durable. Mem0's id, owners, categories,
// metadata and times are kept in the row's metadata.

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
// naming the item (results[3]) and what is wrong.
func ReadMem0(r io.Reader) ([]Mem0Memory, error) {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	tok, err := dec.Token()
	if err != nil {
		return nil, mem0SyntaxError(dec, "", err)
	}
	var raws []json.RawMessage
	prefix := ""
	switch tok {
	case json.Delim('['):
		if raws, err = readMem0List(dec, ""); err != nil {
			return nil, err
		}
	case json.Delim('{'):
		prefix = "results"
		found := false
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return nil, mem0SyntaxError(dec, "", err)
			}
			if key != "results" {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return nil, mem0SyntaxError(dec, fmt.Sprint(key), err)
				}
				continue
			}
			found = true
			open, err := dec.Token()
			if err != nil {
				return nil, mem0SyntaxError(dec, "results", err)
			}
			if open != json.Delim('[') {
				return nil, fmt.Errorf("results must be the list of memories Mem0's get_all returns, not %s", tokenKind(open))
			}
			if raws, err = readMem0List(dec, "results"); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, mem0SyntaxError(dec, "", err)
		}
		if !found {
			return nil, errors.New(`the object has no results list: give the JSON of Mem0's get_all ({"results": [...]}) or a list of memories`)
		}
	default:
		return nil, fmt.Errorf(`the file holds %s: give the JSON of Mem0's get_all ({"results": [...]}) or a list of memories`, tokenKind(tok))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more JSON follows the memories at byte %d: give one get_all answer per file", dec.InputOffset())
	}
	if len(raws) == 0 {
		return nil, errors.New("the file holds no memories: the list is empty")
	}
	out := make([]Mem0Memory, len(raws))
	for i, raw := range raws {
		if out[i], err = parseMem0(fmt.Sprintf("%s[%d]", prefix, i), raw); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readMem0List reads the items of a list whose '[' was read, up to its ']'.
func readMem0List(dec *json.Decoder, prefix string) ([]json.RawMessage, error) {
	var raws []json.RawMessage
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, mem0SyntaxError(dec, fmt.Sprintf("%s[%d]", prefix, i), err)
		}
		raws = append(raws, raw)
	}
	if _, err := dec.Token(); err != nil {
		return nil, mem0SyntaxError(dec, prefix, err)
	}
	return raws, nil
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
	// Progress, when set, is told how many of the rows were pushed.
	Progress func(done, total int)
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
// relative dates ("tomorrow") are read from its created_at.
func PlanMem0(mems []Mem0Memory, opts Mem0Options, now time.Time) ([]Mem0Row, error) {
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
	owners := map[string]string{} // scope → the user id it was made of
	rows := make([]Mem0Row, len(mems))
	for i, m := range mems {
		r := Mem0Row{Memory: m, Scope: scope}
		if opts.ScopePerUser {
			if m.UserID == "" {
				return nil, fmt.Errorf("%s has no user_id: --scope-per-user puts each user's memories in the user's scope; import memories of agents or runs alone with --scope", m.label())
			}
			s, err := ScopeForUser(m.UserID)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m.label(), err)
			}
			if other, ok := owners[s]; ok && other != m.UserID {
				return nil, fmt.Errorf("user_ids %q and %q both make scope %s: --scope-per-user cannot keep them apart; import them with --scope", other, m.UserID, s)
			}
			owners[s] = m.UserID
			r.Scope = s
		}
		if err := classifyMem0(&r, now); err != nil {
			return nil, fmt.Errorf("%s: %w", m.label(), err)
		}
		rows[i] = r
	}
	return rows, nil
}

// classifyMem0 gives r its axes, marker and working row.
func classifyMem0(r *Mem0Row, now time.Time) error {
	m := r.Memory
	text := strings.TrimSpace(m.Text)
	if err := memory.CheckText("memory", text); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(text); n > mem0MaxText {
		return fmt.Errorf("the memory is %d characters long: a working row holds at most %d", n, mem0MaxText)
	}
	said := now
	if m.CreatedAt != nil {
		said = *m.CreatedAt
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

	entity := m.UserID
	if entity == "" {
		entity = m.AgentID
	}
	if n := utf8.RuneCountInString(entity); n > mem0MaxEntity {
		return fmt.Errorf("its owner %q is %d characters long: an entity name is at most %d", entity, n, mem0MaxEntity)
	}
	props := memory.RowAxes{Entity: entity, Key: r.Key, Category: r.Category, Durability: string(r.Durability),
		Deadline: c.Deadline, Alternatives: c.Alternatives, Reasoning: c.Reasoning}.Properties()
	meta := map[string]any{"source": "mem0", "classified_by": "offline", "reason": r.Reason}
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
	if err := memory.CheckJSON("metadata", meta); err != nil {
		return err
	}
	r.Node = memory.NewNode{Content: text, Metadata: meta, Properties: props}
	if r.Marker != memory.MarkerDurable {
		r.Node.Durability = string(r.Marker)
	}
	return nil
}

// Pusher is the engine's push door, as a Mem0 import uses it; a
// *memory.Store is one.
type Pusher interface {
	PushAll(ctx context.Context, actor memory.Actor, batches []memory.PushBatch, opts memory.PushAllOptions) ([]memory.PushResult, error)
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
	// (duplicate) or name a locked decision's key (decision_locked).
	Notes map[string]int `json:"notes"`
	// Atomicity says how the pushes behave when one fails.
	Atomicity string `json:"atomicity"`
}

// ImportMem0 pushes rows (from PlanMem0) through p, in batches of at most
// memory.MaxPushBatch rows of one scope, all in one transaction: every row
// is written or none, and no consolidation run sees part of the import. A
// dry run checks and notes every row as the push would, then writes
// nothing.
func ImportMem0(ctx context.Context, p Pusher, actor memory.Actor, rows []Mem0Row, opts Mem0Options) (Mem0Report, error) {
	if len(rows) == 0 {
		return Mem0Report{}, errors.New("no memories to push: the file holds none")
	}
	rep := Mem0Report{DryRun: opts.DryRun, Memories: len(rows), Scopes: map[string]int{},
		ByDurability: map[string]int{}, ByCategory: map[string]int{}, ByMarker: map[string]int{}, Notes: map[string]int{}}
	// Batches by scope, in the order scopes first appear.
	var order []string
	byScope := map[string][]int{}
	for i, r := range rows {
		if _, ok := byScope[r.Scope]; !ok {
			order = append(order, r.Scope)
		}
		byScope[r.Scope] = append(byScope[r.Scope], i)
		rep.Scopes[r.Scope]++
		rep.ByDurability[string(r.Durability)]++
		rep.ByCategory[r.Category]++
		rep.ByMarker[string(r.Marker)]++
	}
	var batches [][]int
	var push []memory.PushBatch
	for _, s := range order {
		for chunk := range slices.Chunk(byScope[s], memory.MaxPushBatch) {
			batches = append(batches, chunk)
			b := memory.PushBatch{Scope: s, Nodes: make([]memory.NewNode, len(chunk))}
			for i, ri := range chunk {
				b.Nodes[i] = rows[ri].Node
			}
			push = append(push, b)
		}
	}
	rep.Batches = len(batches)
	rep.Atomicity = "one batch, one transaction: all or nothing"
	if len(batches) > 1 {
		rep.Atomicity = fmt.Sprintf("%d batches of at most %d rows of one scope, in one transaction: all or nothing",
			len(batches), memory.MaxPushBatch)
	}
	res, err := p.PushAll(ctx, actor, push, memory.PushAllOptions{DryRun: opts.DryRun, Progress: opts.Progress})
	if err != nil {
		return rep, fmt.Errorf("%w; nothing was written", pushError(err, rows, batches))
	}
	for _, r := range res {
		for _, n := range r.Notes {
			rep.Notes[n.Code]++
		}
		rep.Rows += len(r.IDs)
	}
	return rep, nil
}

var batchField = regexp.MustCompile(`^batches\[(\d+)\](?:\.nodes\[(\d+)\])?`)

// pushError names the memory behind a row the engine refused.
func pushError(err error, rows []Mem0Row, batches [][]int) error {
	e := memory.AsError(err)
	if e == nil {
		return err
	}
	m := batchField.FindStringSubmatch(e.Field)
	if m == nil {
		return err
	}
	bi, _ := strconv.Atoi(m[1])
	if bi >= len(batches) {
		return err
	}
	batch := batches[bi]
	i := 0
	if m[2] != "" {
		i, _ = strconv.Atoi(m[2])
	} else if len(batch) != 1 {
		return err
	}
	if i >= len(batch) {
		return err
	}
	return fmt.Errorf("%s: %w", rows[batch[i]].Memory.label(), err)
}
