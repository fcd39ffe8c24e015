package memory

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/tenurehq/tenure/queries"
)

// A decision an automated writer states on another key than a locked
// decision of the same entity may still reopen it in other words: "Night
// shift runs on Thursdays from now on" (night_shift_day) beside the locked
// "The night shift is on Tuesdays" (night_shift). Consolidation refuses
// such a decision as decision_locked when its topic resembles the locked
// one's (sameTopic), so it never becomes a second settled decision; a
// person can still reopen the first in the console.

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

// sameTopic reports whether two decisions' topic words overlap enough to be
// one question: two words in common ("night shift"). One is not enough:
// "Use option 1" and "Use option 9" on keys of their own share "option".
func sameTopic(a, b map[string]bool) bool {
	shared := 0
	for w := range a {
		if b[w] {
			shared++
		}
	}
	return shared >= 2
}

// decisionTopic is the topic of a decision: the topic words of its text,
// its key's words and its alternatives.
func decisionTopic(decision, key string, alternatives []string) map[string]bool {
	return topicWords(append([]string{decision, strings.ReplaceAll(key, "_", " ")}, alternatives...)...)
}

// topicLocked returns the first of locked (the locked decisions of an
// entity, with their topics) that a decision of that entity on key, of
// topic mine, would settle a second time: one on another key, not a
// numbered sibling of it, on the same topic. It returns -1 for none.
func topicLocked(locked []queries.LockedDecisionsOfEntitiesRow, topics []map[string]bool, entityID int64, key string, mine map[string]bool) int {
	for i, d := range locked {
		if d.EntityID == entityID && d.Key != key && !numberedSlots(d.Key, key) && sameTopic(mine, topics[i]) {
			return i
		}
	}
	return -1
}

// lockedDecisionsOf reads the locked decisions of entities with their
// topics.
func lockedDecisionsOf(ctx context.Context, q *queries.Queries, entities []int64) ([]queries.LockedDecisionsOfEntitiesRow, []map[string]bool, error) {
	locked, err := q.LockedDecisionsOfEntities(ctx, entities)
	if err != nil {
		return nil, nil, fmt.Errorf("decision lock: %w", err)
	}
	topics := make([]map[string]bool, len(locked))
	for i, d := range locked {
		topics[i] = decisionTopic(d.Decision, d.Key, d.Alternatives)
	}
	return locked, topics, nil
}

// lockedTopics returns, for each decision plan whose entity exists (entityOf
// gives its id) and that no lock on its key refuses already, the locked
// decision of its entity whose topic it shares, if any.
func lockedTopics(ctx context.Context, q *queries.Queries, plans []plan, entityOf func(plan) (int64, bool)) (map[int64]int64, error) {
	var ids []int64
	for _, p := range plans {
		if id, ok := entityOf(p); ok && p.decision {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	locked, topics, err := lockedDecisionsOf(ctx, q, ids)
	if err != nil || len(locked) == 0 {
		return nil, err
	}
	out := map[int64]int64{}
	for _, p := range plans {
		if id, ok := entityOf(p); ok && p.decision {
			if i := topicLocked(locked, topics, id, p.key, decisionTopic(p.content, p.key, p.alternatives)); i >= 0 {
				out[p.nodeID] = locked[i].ID
			}
		}
	}
	return out, nil
}

// topicLock returns the locked decision of entityID on another key than key
// whose topic a decision (text and alternatives) shares, or nil: what an
// automated RecordDecision may not settle a second time.
func topicLock(ctx context.Context, q *queries.Queries, entityID int64, key, decision string, alternatives []string) (*lockInfo, error) {
	locked, topics, err := lockedDecisionsOf(ctx, q, []int64{entityID})
	if err != nil {
		return nil, err
	}
	if i := topicLocked(locked, topics, entityID, key, decisionTopic(decision, key, alternatives)); i >= 0 {
		d := locked[i]
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
