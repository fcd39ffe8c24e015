package mcpserver

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/wire"
)

// recallText is recall's answer as a model reads it: one compact line per
// fact (its content; entity and key; category and durability, or for a
// working row not consolidated yet "pending (not yet consolidated)"; its
// confidence now; how long ago it was confirmed or pushed), a decision's
// reasoning after it. Every field of every result stays in the structured
// content.
func recallText(results []memory.RecallResult, now time.Time) string {
	if len(results) == 0 {
		return "No facts match."
	}
	var sb strings.Builder
	for i, r := range results {
		f := r.Fact
		kind := f.Category + ", " + string(f.Durability)
		if r.Pending {
			kind = "pending (not yet consolidated)"
		}
		// When it was (last) observed: the date, and how long ago.
		fmt.Fprintf(&sb, "%d. %s (%s / %s; %s; confidence %.2f; observed %s, %s)",
			i+1, oneLine(f.Content), oneLine(f.Entity), f.Key, kind, f.EffectiveConfidence,
			f.ConfirmedAt.UTC().Format(time.DateOnly), age(now.Sub(f.ConfirmedAt)))
		if d := r.Decision; d != nil {
			if reason := oneLine(d.Reasoning); reason != "" {
				sb.WriteString(" — decided because " + reason)
			}
			if d.DoNotReopen && d.SupersededBy == nil {
				sb.WriteString(" (locked)")
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// age is d as a short "… ago".
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	case d < 60*24*time.Hour:
		return fmt.Sprintf("%d d ago", int(d/(24*time.Hour)))
	case d < 730*24*time.Hour:
		return fmt.Sprintf("%d mo ago", int(d/(30*24*time.Hour)))
	}
	return fmt.Sprintf("%d y ago", int(d/(365*24*time.Hour)))
}

// batchError is a push's validation error in the caller's names: the
// engine's "nodes" field (nodes[i] for a row) is the tool's argument arg,
// and the batch limit is said per call; n is the size of the batch given.
func batchError(err error, arg string, n int) error {
	var e *memory.Error
	if !errors.As(err, &e) || !strings.HasPrefix(e.Field, "nodes") {
		return err
	}
	c := *e
	c.Field = arg + strings.TrimPrefix(e.Field, "nodes")
	if c.Field == arg && n > memory.MaxPushBatch {
		c.Message = fmt.Sprintf("%d %s given: at most %d %s per call", n, arg, memory.MaxPushBatch, arg)
	}
	return &c
}

// The most runes a one-line answer quotes of a memory's text.
const quoteRunes = 80

// quote is s on one line, cut to quoteRunes runes with "…", in quotes.
func quote(s string) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > quoteRunes {
		s = strings.TrimSpace(string(r[:quoteRunes-1])) + "…"
	}
	return "'" + s + "'"
}

// lockedText is a refusal by a locked decision in one line: which decision,
// what it settled and why, each cut short (the engine's message quotes them
// whole).
func lockedText(d memory.LockedDecision) string {
	line := fmt.Sprintf("decision_locked: decision %d %s is locked", d.ID, quote(d.Decision))
	if r := oneLine(d.Reasoning); r != "" {
		line += " (because " + strings.Trim(quote(r), "'") + ")"
	}
	return line + "; only a person can reopen it, in the console"
}

// recordedText is record_decision's answer in one line; the decision is in
// the structured content.
func recordedText(d memory.Decision) string {
	lock := "locked: automated writers may not reopen it"
	if !d.DoNotReopen {
		lock = "open, not locked"
	}
	return fmt.Sprintf("Recorded decision %d on %s / %s: %s (%s).", d.ID, oneLine(d.Entity), d.Key, quote(d.Decision), lock)
}

// durabilityText is set_durability's answer in one line: the row's new
// marker and what consolidation will do with it.
func durabilityText(out wire.Node) string {
	what := map[string]string{
		string(memory.MarkerDurable):   "the next consolidation run may promote it to a fact",
		string(memory.MarkerTransient): "consolidation will not promote it, and cleanup prunes it within the hour",
		string(memory.MarkerExpired):   "consolidation will not promote it, and the next cleanup deletes it",
	}[out.Durability]
	line := fmt.Sprintf("Working row %d is now %s", out.ID, out.Durability)
	if what != "" {
		line += ": " + what
	}
	return line + "."
}

// extractedText is extract's answer in one line: how many candidates, up to
// three of them quoted, and with store (scope set) the rows written and the
// warnings, counted; every field is in the structured content.
func extractedText(out wire.Extraction, scope string) string {
	n := len(out.Candidates)
	if n == 0 {
		if scope != "" {
			return "No facts found in the text; nothing was written."
		}
		return "No facts found in the text."
	}
	quoted := make([]string, 0, 3)
	for _, c := range out.Candidates[:min(n, 3)] {
		quoted = append(quoted, quote(c.Content))
	}
	list := strings.Join(quoted, ", ")
	if n > 3 {
		list += fmt.Sprintf(" and %d more", n-3)
	}
	noun := "candidate facts"
	if n == 1 {
		noun = "candidate fact"
	}
	if scope == "" {
		return fmt.Sprintf("Extracted %d %s (not stored): %s.", n, noun, list)
	}
	line := fmt.Sprintf("Extracted %d %s and wrote them as working rows %s to scope %s: %s.", n, noun, joinIDs(*out.StoredNodeIDs), scope, list)
	if out.Notes != nil && len(*out.Notes) > 0 {
		notes := *out.Notes
		said := make([]string, 0, 3)
		for _, note := range notes[:min(len(notes), 3)] {
			switch note.Code {
			case memory.NoteDecisionLocked:
				said = append(said, fmt.Sprintf("row %d is on locked decision %d", note.Row, idOf(note.DecisionID)))
			case memory.NoteDuplicate:
				said = append(said, fmt.Sprintf("row %d repeats fact %d", note.Row, idOf(note.FactID)))
			default:
				said = append(said, fmt.Sprintf("row %d: %s", note.Row, note.Code))
			}
		}
		if len(notes) > 3 {
			said = append(said, fmt.Sprintf("%d more", len(notes)-3))
		}
		line += " Not new facts: " + strings.Join(said, "; ") + "."
	}
	return line
}

// idOf is *id, 0 for none.
func idOf(id *int64) int64 {
	if id == nil {
		return 0
	}
	return *id
}
