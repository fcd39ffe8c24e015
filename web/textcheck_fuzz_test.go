package web

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/internal/textcheck"
	"github.com/tenurehq/tenure/memory"
)

// FuzzConsoleFilters drives the filters of the facts, decisions, working
// memory, review and audit pages with any query string: they never panic; a
// refusal is CodeInvalid (a 400 page naming the parameter); a filter they
// accept holds only clean text (UTF-8, no NUL, no control character but tab,
// newline and carriage return), which is all that may reach the database.
func FuzzConsoleFilters(f *testing.F) {
	for _, seed := range []string{
		"scope=acme&durability=permanent&category=mood&status=all&q=lisbon&entity=ann",
		"q=%00",
		"entity=caf%E9",
		"actor=%00&target_id=1%00",
		"actor=user%3Aann%40example.com&action=fact.update&target_type=fact&target_id=12&since=2026-01-01&until=2026-12-31",
		"q=%1b%5b31m&lock=locked",
		"kind=near_duplicate&scope=acme&after=5",
		"marker=durable&state=all&before=9",
		"%ff=1&scope=",
		"entity=" + strings.Repeat("%F0%9F%8E%89", 201),
		"before=-1&after=x&since=yesterday",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, _ := url.ParseQuery(raw)
		check := func(page string, err error, filters ...any) {
			t.Helper()
			if err != nil {
				var me *memory.Error
				if !errors.As(err, &me) || me.Code != memory.CodeInvalid || me.Message == "" {
					t.Fatalf("%s filter %q = %#v, want a CodeInvalid error with a message", page, raw, err)
				}
				return
			}
			for _, filter := range filters {
				if err := textcheck.Struct(filter); err != nil {
					t.Fatalf("%s filter %q accepted unclean text: %v", page, raw, err)
				}
			}
		}
		ff, _, err := parseFactsFilter(v)
		check("facts", err, ff)
		df, _, err := parseDecisionsFilter(v)
		check("decisions", err, df)
		wf, _, err := parseWorkingFilter(v)
		check("working", err, wf)
		rf, _, err := parseReviewFilter(v)
		check("review", err, rf)
		av, af, err := parseAuditLogFilter(v)
		check("audit", err, av, af)
	})
}
