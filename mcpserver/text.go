package mcpserver

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tenurehq/tenure/memory"
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
