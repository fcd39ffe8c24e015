package memory

import (
	"errors"
	"fmt"
)

// Code classifies an Error so that each adapter (HTTP pages, JSON API, CLI)
// can map it to its own status without string matching.
type Code string

// The error codes the domain returns.
const (
	CodeInvalid        Code = "invalid"         // the input is malformed or out of range
	CodeNotFound       Code = "not_found"       // the row does not exist (in this scope)
	CodeConflict       Code = "conflict"        // a stale version or a duplicate
	CodeDecisionLocked Code = "decision_locked" // a write against a do_not_reopen decision
	CodeForbidden      Code = "forbidden"       // the actor may not do this
)

// Error is a domain error with a code, a message meant for the person or agent
// that caused it, and optionally the input field at fault.
type Error struct {
	Code    Code
	Message string
	Field   string
}

func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s: %s", e.Field, e.Message)
	}
	return e.Message
}

// Invalidf returns a CodeInvalid error about field.
func Invalidf(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// NotFoundf returns a CodeNotFound error.
func NotFoundf(format string, args ...any) *Error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, or "" when
// there is none (an internal failure).
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var l *LockedError
	if errors.As(err, &l) {
		return CodeDecisionLocked
	}
	return ""
}

// LockedError is the error of a write refused because a decision with
// do_not_reopen holds the same scope, entity and key. Its Code is
// CodeDecisionLocked; callers show the decision's id and reasoning.
type LockedError struct {
	DecisionID int64
	Decision   string
	Reasoning  string
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("decision_locked: decision %d (%q) is settled and may not be reopened by an automated writer; reasoning: %s",
		e.DecisionID, e.Decision, e.Reasoning)
}

// Unwrap lets callers that look for *Error see a CodeDecisionLocked error.
func (e *LockedError) Unwrap() error {
	return &Error{Code: CodeDecisionLocked, Message: e.Error()}
}
