package memory

import (
	"errors"
	"fmt"
	"strings"
)

// Code classifies an Error so that each edge (console pages, the JSON API,
// MCP tools, the CLI) maps it to its own answer in one table, without
// string matching.
type Code string

// The error codes the domain returns.
const (
	CodeInvalid        Code = "invalid"         // the input is malformed or out of range
	CodeNotFound       Code = "not_found"       // the row does not exist (in this scope)
	CodeConflict       Code = "conflict"        // a stale version, a duplicate, an item already resolved
	CodeDecisionLocked Code = "decision_locked" // a write against a do_not_reopen decision
	CodeBusy           Code = "busy"            // the work is already being done: try again later
	CodeForbidden      Code = "forbidden"       // the actor may not do this
)

// Error is the one error type of the domain: a code, a message meant for
// the person or agent that caused it, the input field at fault, and what an
// edge shows beside the message for some codes. Every package that refuses
// a request (memory, auth) returns it; edges read it with errors.As.
type Error struct {
	Code    Code
	Message string
	Field   string

	// CurrentFact is the fact as it is now, when an edit was made from a
	// stale version of it (CodeConflict).
	CurrentFact *Fact
	// CurrentDecision is the decision as it is now, when an edit was made
	// from a stale version of it (CodeConflict).
	CurrentDecision *Decision
	// Locked is the decision that refuses a write (CodeDecisionLocked).
	Locked *LockedDecision
	// Review is the review item that was already resolved (CodeConflict).
	Review *ReviewItem
	// Problems are the bad lines of an import file refused whole
	// (CodeInvalid); Message is then the summary.
	Problems []ImportProblem
}

// LockedDecision is what a refusal by a locked decision tells: which
// decision, what it settled and why.
type LockedDecision struct {
	ID        int64
	Decision  string
	Reasoning string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Message)
	for _, p := range e.Problems {
		fmt.Fprintf(&b, "\n  line %d: ", p.Line)
		if p.Field != "" {
			b.WriteString(p.Field + ": ")
		}
		b.WriteString(p.Message)
	}
	return b.String()
}

// Is makes errors.Is(err, target) match an *Error target by identity, or,
// for a target with only a Code, by code: errors.Is(err, &Error{Code:
// CodeBusy}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return t == e || (t.Message == "" && t.Field == "" && t.Code == e.Code)
}

// Invalidf returns a CodeInvalid error about field.
func Invalidf(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// NotFoundf returns a CodeNotFound error.
func NotFoundf(format string, args ...any) *Error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf(format, args...)}
}

// Forbiddenf returns a CodeForbidden error.
func Forbiddenf(format string, args ...any) *Error {
	return &Error{Code: CodeForbidden, Message: fmt.Sprintf(format, args...)}
}

// AsError returns the first *Error in err's chain, or nil.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// ErrorCode returns the code of the first *Error in err's chain, or "" when
// there is none (an internal failure).
func ErrorCode(err error) Code {
	if e := AsError(err); e != nil {
		return e.Code
	}
	return ""
}

// lockedError is the refusal of a write by decision d.
func lockedError(d LockedDecision) *Error {
	return &Error{Code: CodeDecisionLocked, Locked: &d, Message: fmt.Sprintf(
		"decision_locked: decision %d (%q) is settled and may not be reopened by an automated writer; reasoning: %s",
		d.ID, d.Decision, d.Reasoning)}
}

// staleFact is the refusal of an edit made from a stale version of cur.
func staleFact(cur Fact) *Error {
	return &Error{Code: CodeConflict, CurrentFact: &cur, Message: fmt.Sprintf(
		"the fact was changed by someone else (now version %d); review the current values and apply your change again",
		cur.Version)}
}

// staleDecision is the refusal of an edit made from a stale version of cur.
func staleDecision(cur Decision) *Error {
	return &Error{Code: CodeConflict, CurrentDecision: &cur, Message: fmt.Sprintf(
		"the decision was changed by someone else (now version %d); review the current values and apply your change again",
		cur.Version)}
}

// reviewResolved is the refusal of a change to review item it, which was
// already resolved.
func reviewResolved(it ReviewItem) *Error {
	msg := fmt.Sprintf("review item %d was already %s", it.ID, it.Status)
	if it.ResolvedBy != "" {
		msg += " by " + it.ResolvedBy
	}
	if it.ResolvedAt != nil {
		msg += " at " + it.ResolvedAt.UTC().Format("2006-01-02 15:04 UTC")
	}
	return &Error{Code: CodeConflict, Review: &it, Message: msg + "; nothing was changed"}
}

// importRefused is the refusal of a whole import file for its bad lines.
func importRefused(problems []ImportProblem) *Error {
	lines := map[int]bool{}
	for _, p := range problems {
		lines[p.Line] = true
	}
	msg := fmt.Sprintf("the file was refused and nothing was imported: %d lines are invalid", len(lines))
	if len(lines) == 1 {
		msg = "the file was refused and nothing was imported: 1 line is invalid"
	}
	return &Error{Code: CodeInvalid, Message: msg, Problems: problems}
}
