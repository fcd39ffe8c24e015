// Package wire holds the JSON objects Tenure's two agent surfaces answer
// with: the REST API (package api, documented in api/openapi.json) and the
// MCP server's structured tool results (package mcpserver). One concept has
// one shape on both: a fact, a decision, a page of a list, a push's answer,
// a recall, a brief, an extraction. The types are kept apart from the
// engine's so that neither changes the other by accident; every time they
// carry is UTC.
package wire

import (
	"strconv"
	"time"
)

// Page is one page of a keyset-paginated list: pass NextCursor back as the
// cursor for the next page; it is null on the last page.
type Page[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

// UTC is t in UTC.
func UTC(t time.Time) time.Time { return t.UTC() }

// UTCPtr is *t in UTC, nil for nil.
func UTCPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// nonZero is a pointer to id, nil for 0 (no such row).
func nonZero(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// orEmpty is s, or an empty slice for nil, so that lists encode as [].
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Paginate cuts rows, of which fetched were asked for, to one page of limit
// and says where the next one starts. Ask for one row more than limit to
// learn whether another page follows; when no extra row could be asked for
// (the engine's cap), a full page gets a cursor, and the next page may be
// empty.
func Paginate[R, T any](rows []R, limit, fetched int, id func(R) int64, view func(R) T) Page[T] {
	p := Page[T]{Items: make([]T, 0, min(len(rows), limit))}
	if len(rows) > limit || (fetched == limit && len(rows) == limit && limit > 0) {
		rows = rows[:limit]
		next := strconv.FormatInt(id(rows[len(rows)-1]), 10)
		p.NextCursor = &next
	}
	for _, r := range rows {
		p.Items = append(p.Items, view(r))
	}
	return p
}
