package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/tenurehq/tenure/queries"
)

// A decision an automated writer states on another key than a locked
// decision may still reopen it in other words: "Night shift runs on
// Thursdays from now on" (night_shift_day) beside the locked "The night
// shift is on Tuesdays" (night_shift), or written about another entity of
// the scope ("José decided to move the night shift to Thursdays").
// Consolidation and an automated RecordDecision refuse such a decision as
// decision_locked when its topic resembles the locked one's (topicLocked),
// so it never becomes a second settled decision; it waits in the review
// queue, and a person can still reopen the first in the console.

// topicStop are words that say nothing of a decision's topic.
var topicStop = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "from": true, "now": true, "our": true, "are": true,
	"was": true, "were": true, "will": true, "this": true, "that": true, "these": true, "those": true,
	"use": true, "uses": true, "using": true, "used": true, "decided": true, "decide": true, "decision": true,
	"going": true, "instead": true, "rather": true, "than": true, "not": true, "all": true, "any": true,
	"from_now_on": true, "on": true, "runs": true, "run": true, "stays": true, "stay": true, "keep": true,
	"move": true, "moves": true, "moved": true, "moving": true, "switch": true, "switched": true, "team": true,
	"they": true, "them": true, "its": true, "their": true, "has": true, "have": true, "had": true, "let": true,
	"lets": true, "let's": true, "settled": true, "agreed": true, "chose": true, "choose": true, "picked": true,
	"into": true, "onto": true, "until": true, "every": true, "each": true, "also": true, "just": true,
}

// topicWords are the words of a decision's text, key and alternatives that
// name its topic: lowercased, at least three letters, a plural's s off.
func topicWords(parts ...string) map[string]bool {
	out := map[string]bool{}
	for _, p := range parts {
		for _, w := range strings.FieldsFunc(strings.ToLower(p), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
		}) {
			if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
				w = w[:len(w)-1]
			}
			if len(w) >= 3 && !topicStop[w] {
				out[w] = true
			}
		}
	}
	return out
}

// topicShared is how many topic words two decisions share when they are one
// question: two ("night shift"). One is not enough: "Use option 1" and "Use
// option 9" on keys of their own share "option".
const topicShared = 2

// sameTopic reports whether two topics are one question (topicShared).
func sameTopic(a, b map[string]bool) bool {
	shared := 0
	for w := range a {
		if b[w] {
			shared++
		}
	}
	return shared >= topicShared
}

// decisionTopic is the topic of a decision: the topic words of its text,
// its key's words and its alternatives.
func decisionTopic(decision, key string, alternatives []string) map[string]bool {
	return topicWords(append([]string{decision, strings.ReplaceAll(key, "_", " ")}, alternatives...)...)
}

// lockProbe is a write that may ask a locked decision's question again.
type lockProbe struct {
	scope, entity, key, content string
	decision                    bool // a decision, not a fact of another category
	alternatives                []string
}

// lockedSet is the locked decisions of some scopes, with their topics, and
// for each topic word the decisions whose topic has it (a write is compared
// only with the decisions it shares a word with).
type lockedSet struct {
	rows   []queries.LockedDecisionsInScopesRow
	topics []map[string]bool
	byWord map[string][]int
	// byRejected: for each word of an alternative a decision rejected (and
	// its own text and key do not use), the decisions that rejected it. A
	// fact of another category reopens a decision only by naming one, so
	// it is compared with those decisions alone.
	byRejected map[string][]int
}

// lockedIn reads the locked decisions of scopes.
func lockedIn(ctx context.Context, q *queries.Queries, scopes []string) (lockedSet, error) {
	rows, err := q.LockedDecisionsInScopes(ctx, scopes)
	if err != nil {
		return lockedSet{}, fmt.Errorf("decision lock: %w", err)
	}
	l := lockedSet{rows: rows, topics: make([]map[string]bool, len(rows)), byWord: map[string][]int{}, byRejected: map[string][]int{}}
	for i, d := range rows {
		l.topics[i] = decisionTopic(d.Decision, d.Key, d.Alternatives)
		for w := range l.topics[i] {
			l.byWord[w] = append(l.byWord[w], i)
		}
		for w := range rejectedWords(d) {
			l.byRejected[w] = append(l.byRejected[w], i)
		}
	}
	return l, nil
}

// reopened returns the index of the locked decision that w would settle a
// second time, or -1 for none. w shares its topic (sameTopic), is on
// another key (the lock on its own key is the key's business, and the same
// key of another entity is that entity's own question: each vendor's
// ship_day) that is not a numbered sibling of it, and:
//   - is about the locked decision's entity, names it in its text, or names
//     its question (every word of its key: a person deciding for a team,
//     "José decided to move the night shift to Thursdays" beside the ops
//     team's locked night shift);
//   - is a decision, or else names one of the alternatives the locked
//     decision rejected ("We're moving the night shift to Thursday next
//     week", filed as an observation): a fact that merely mentions the
//     topic ("the night shift had three incidents") is not refused.
func (l lockedSet) reopened(w lockProbe) int {
	if len(l.rows) == 0 {
		return -1
	}
	mine := decisionTopic(w.content, w.key, w.alternatives)
	index := l.byRejected
	if w.decision {
		index = l.byWord
	}
	var seen map[int]bool
	best := -1
	for word := range mine {
		for _, i := range index[word] {
			if best >= 0 && i >= best || seen[i] {
				continue // the oldest such decision wins, whatever the map's order
			}
			if seen == nil {
				seen = map[int]bool{}
			}
			seen[i] = true
			if l.reopens(i, w, mine) {
				best = i
			}
		}
	}
	return best
}

// reopens reports whether w, of topic mine, settles locked decision i a
// second time (reopened's rule).
func (l lockedSet) reopens(i int, w lockProbe, mine map[string]bool) bool {
	d := l.rows[i]
	if d.Scope != w.scope || d.Key == w.key || numberedSlots(d.Key, w.key) || !sameTopic(mine, l.topics[i]) {
		return false
	}
	if d.Entity != w.entity && !namesKey(mine, d.Key) && !namesEntity(w.content, d.Entity) {
		return false
	}
	return w.decision || namesRejected(mine, d)
}

// namesKey reports whether every topic word of key (two at least) is among
// words: the write names the question the key settles.
func namesKey(words map[string]bool, key string) bool {
	kw := topicWords(strings.ReplaceAll(key, "_", " "))
	if len(kw) < 2 {
		return false
	}
	for w := range kw {
		if !words[w] {
			return false
		}
	}
	return true
}

// namesEntity reports whether text names entity: its words, in order, as
// whole words ("Let's go with Premium support for Acme Robotics" names Acme
// Robotics; "Vendor 10" does not name Vendor 1).
func namesEntity(text, entity string) bool {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	words, name := split(text), split(entity)
	if len(name) == 0 {
		return false
	}
	for i := 0; i+len(name) <= len(words); i++ {
		if slices.Equal(words[i:i+len(name)], name) {
			return true
		}
	}
	return false
}

// namesRejected reports whether words name an alternative that the locked
// decision d rejected (rejectedWords).
func namesRejected(words map[string]bool, d queries.LockedDecisionsInScopesRow) bool {
	for w := range rejectedWords(d) {
		if words[w] {
			return true
		}
	}
	return false
}

// rejectedWords are the topic words of the alternatives d rejected that its
// own text and key do not use.
func rejectedWords(d queries.LockedDecisionsInScopesRow) map[string]bool {
	out := topicWords(d.Alternatives...)
	for w := range topicWords(d.Decision, strings.ReplaceAll(d.Key, "_", " ")) {
		delete(out, w)
	}
	return out
}

// lockedTopics returns, for each plan that no lock on its key refuses
// already (skip reports those), the locked decision of its scope it would
// settle a second time (reopened), if any.
func lockedTopics(ctx context.Context, q *queries.Queries, plans []plan, skip func(plan) bool) (map[int64]int64, error) {
	var scopes []string
	for _, p := range plans {
		if !skip(p) && !slices.Contains(scopes, p.scope) {
			scopes = append(scopes, p.scope)
		}
	}
	if len(scopes) == 0 {
		return nil, nil
	}
	locked, err := lockedIn(ctx, q, scopes)
	if err != nil || len(locked.rows) == 0 {
		return nil, err
	}
	out := map[int64]int64{}
	for _, p := range plans {
		if skip(p) {
			continue
		}
		if i := locked.reopened(p.probe()); i >= 0 {
			out[p.nodeID] = locked.rows[i].ID
		}
	}
	return out, nil
}

// probe is the plan as a write that may reopen a locked decision.
func (p plan) probe() lockProbe {
	return lockProbe{scope: p.scope, entity: p.entity, key: p.key, content: p.content, decision: p.decision, alternatives: p.alternatives}
}

// topicLock returns the locked decision of its scope that a decision w
// would settle a second time (reopened), or nil: what an automated
// RecordDecision may not write.
func topicLock(ctx context.Context, q *queries.Queries, w lockProbe) (*lockInfo, error) {
	locked, err := lockedIn(ctx, q, []string{w.scope})
	if err != nil {
		return nil, err
	}
	if i := locked.reopened(w); i >= 0 {
		d := locked.rows[i]
		return &lockInfo{ID: d.ID, Decision: d.Decision, Reasoning: d.Reasoning}, nil
	}
	return nil, nil
}

// numberedSlots reports whether two keys differ only by their digits
// (choice_1, choice_9): a writer numbering its keys keeps them apart on
// purpose, so their decisions are not one question.
func numberedSlots(a, b string) bool {
	strip := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, s)
	}
	return a != b && strip(a) == strip(b)
}

// topicNotes notes the durable rows of a push that consolidation will
// refuse because they settle a locked decision's question again on another
// key or under another entity (reopened), rows noted already aside: the
// push answers for them at once, as it does for a row on a locked key.
// Only rows that share two topic words with a locked decision of the scope
// are planned as consolidation will plan them (planNode).
func topicNotes(ctx context.Context, q *queries.Queries, scope string, nodes []NewNode, noted map[int]bool, now time.Time) ([]PushNote, error) {
	locked, err := lockedIn(ctx, q, []string{scope})
	if err != nil || len(locked.rows) == 0 {
		return nil, err
	}
	var rows []int
	var plans []plan
	for i, n := range nodes {
		if m, _ := markerOf(n); noted[i] || m != "" && m != MarkerDurable || !locked.near(n) {
			continue
		}
		props, err := json.Marshal(n.Properties)
		if err != nil {
			return nil, fmt.Errorf("push notes: %w", err)
		}
		row := queries.PeekPendingNodesRow{Scope: scope, Content: n.Content, Properties: props, Marker: string(MarkerDurable)}
		if n.ObservedAt != nil {
			row.ObservedAt = *n.ObservedAt
		}
		rows, plans = append(rows, i), append(plans, planNode(row, now))
	}
	if len(plans) == 0 {
		return nil, nil
	}
	scopes, names := make([]string, len(plans)), make([]string, len(plans))
	for i, p := range plans {
		scopes[i], names[i] = p.scope, p.entity
	}
	if names, err = canonicalEntities(ctx, q, scopes, names); err != nil {
		return nil, fmt.Errorf("push notes: %w", err)
	}
	var notes []PushNote
	for j, p := range plans {
		p.entity = names[j]
		i := locked.reopened(p.probe())
		if i < 0 {
			continue
		}
		d := locked.rows[i]
		notes = append(notes, PushNote{Row: rows[j], Code: NoteDecisionLocked, DecisionID: d.ID, Decision: d.Decision,
			Reasoning: d.Reasoning, Message: fmt.Sprintf("this row settles again what locked decision %d of %s settles (%q, "+
				"because %s): consolidation will refuse it and queue it for review; a person can reopen the decision in the console",
				d.ID, d.Entity, d.Decision, d.Reasoning)})
	}
	return notes, nil
}

// near reports whether a pushed row shares two topic words with a locked
// decision of the set: the cheap test before a row is planned.
func (l lockedSet) near(n NewNode) bool {
	key, _ := n.Properties["key"].(string)
	shared := map[int]int{}
	for w := range topicWords(n.Content, strings.ReplaceAll(key, "_", " ")) {
		for _, i := range l.byWord[w] {
			if shared[i]++; shared[i] >= topicShared {
				return true
			}
		}
	}
	return false
}
