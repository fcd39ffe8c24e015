package memory

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tenurehq/tenure/queries"
)

// AuditFilter selects rows of the audit log. Zero fields leave their filter
// out.
type AuditFilter struct {
	// Actor is an actor as stored ("user:ann@example.com") or a bare name
	// ("ann@example.com"), which matches that name as a person, a token or
	// a system process.
	Actor string
	// Action is an action ("fact.update") or a family of them ("fact").
	Action     string
	TargetType string // fact, decision, node, policy, user, token, ...
	TargetID   string
	Scope      string
	Since      *time.Time // inclusive
	Until      *time.Time // exclusive
	BeforeID   int64      // keyset cursor: rows with smaller ids; 0 for the first page
	Limit      int32      // default 50, at most 500
}

// AuditLogEntry is one row of the audit log with the row it is about.
type AuditLogEntry struct {
	AuditRecord
	TargetType string  `json:"target_type"`
	TargetID   string  `json:"target_id"`
	Scope      *string `json:"scope,omitempty"`
}

var (
	auditActionPattern     = regexp.MustCompile(`^[a-z][a-z0-9_.]*$`)
	auditTargetTypePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// Bounds of the audit filter's free-text values.
const (
	maxAuditActor    = 300
	maxAuditAction   = 64
	maxAuditTargetID = 100
	maxAuditLimit    = 500
)

// auditActorCandidates are the stored actor strings an actor filter matches.
func auditActorCandidates(actor string) []string {
	if strings.Contains(actor, ":") {
		return []string{actor}
	}
	return []string{actor, Human(actor).String(), Token(actor).String(), System(actor).String()}
}

func (f AuditFilter) params() (queries.ListAuditLogParams, error) {
	p := queries.ListAuditLogParams{BeforeID: f.BeforeID, PageSize: f.Limit, Since: f.Since, Until: f.Until}
	if p.PageSize <= 0 {
		p.PageSize = 50
	}
	if p.PageSize > maxAuditLimit {
		return p, Invalidf("limit", "limit %d is too large: at most %d", p.PageSize, maxAuditLimit)
	}
	if f.BeforeID < 0 {
		return p, Invalidf("before", "invalid page cursor %d: it must be a positive audit row id", f.BeforeID)
	}
	if a := strings.TrimSpace(f.Actor); a != "" {
		if n := utf8.RuneCountInString(a); n > maxAuditActor {
			return p, Invalidf("actor", "the actor is %d characters long: at most %d are allowed", n, maxAuditActor)
		}
		p.Actors = auditActorCandidates(a)
	}
	if a := strings.TrimSpace(f.Action); a != "" {
		a = strings.TrimSuffix(a, ".")
		if len(a) > maxAuditAction || !auditActionPattern.MatchString(a) {
			return p, Invalidf("action", "invalid action %q: use an action such as fact.update, or its family such as fact (lowercase letters, digits, '_' and '.')", f.Action)
		}
		p.Action = &a
	}
	if t := strings.TrimSpace(f.TargetType); t != "" {
		if len(t) > maxAuditAction || !auditTargetTypePattern.MatchString(t) {
			return p, Invalidf("target_type", "invalid target type %q: use a type such as fact, decision, node, policy, user or token", f.TargetType)
		}
		p.TargetType = &t
	}
	if id := strings.TrimSpace(f.TargetID); id != "" {
		if n := utf8.RuneCountInString(id); n > maxAuditTargetID {
			return p, Invalidf("target_id", "the target id is %d characters long: at most %d are allowed", n, maxAuditTargetID)
		}
		p.TargetID = &id
	}
	if s := strings.TrimSpace(f.Scope); s != "" {
		if _, err := ParseScope(s); err != nil {
			return p, err
		}
		p.Scope = &s
	}
	if f.Since != nil && f.Until != nil && !f.Since.Before(*f.Until) {
		return p, Invalidf("until", "the date range is empty: since (%s) must come before until (%s)",
			f.Since.UTC().Format(time.RFC3339), f.Until.UTC().Format(time.RFC3339))
	}
	return p, nil
}

// ListAudit returns one page of the audit log, newest first. A malformed
// filter is a CodeInvalid error naming the filter at fault.
func (s *Store) ListAudit(ctx context.Context, f AuditFilter) ([]AuditLogEntry, error) {
	p, err := f.params()
	if err != nil {
		return nil, err
	}
	rows, err := s.q.ListAuditLog(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("list audit log: %w", err)
	}
	out := make([]AuditLogEntry, len(rows))
	for i, r := range rows {
		out[i] = AuditLogEntry{
			AuditRecord: AuditRecord{ID: r.ID, At: r.At, Actor: r.Actor, Action: r.Action,
				Before: r.Before, After: r.After, Reason: r.Reason},
			TargetType: r.TargetType, TargetID: r.TargetID, Scope: r.Scope,
		}
	}
	return out, nil
}
