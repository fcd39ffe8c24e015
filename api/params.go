package api

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/memory"
)

// Keyset pagination: ?limit= (default 50, at most 500) and ?cursor=, the
// next_cursor of the previous page.
const (
	defaultLimit = 50
	maxLimit     = 500
)

// query reads a request's query string. Parameters the route does not know
// are refused, naming the ones it does, so that a typo never silently
// widens a filter; so is text the store cannot take (memory.CheckParams).
type query struct {
	values url.Values
}

func newQuery(c echo.Context, allowed ...string) (query, error) {
	v := c.QueryParams()
	// Names and values are text that may reach the database: a NUL,
	// invalid UTF-8 or a control character is refused first, naming it.
	if err := memory.CheckParams(v); err != nil {
		return query{}, err
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			if len(allowed) == 0 {
				return query{}, memory.Invalidf(k, "unknown query parameter: this route takes none")
			}
			return query{}, memory.Invalidf(k, "unknown query parameter: allowed parameters are %s", strings.Join(allowed, ", "))
		}
		if len(v[k]) > 1 {
			return query{}, memory.Invalidf(k, "the query parameter is given %d times: give it once", len(v[k]))
		}
	}
	return query{values: v}, nil
}

// text returns a parameter trimmed of space, at most max characters long.
func (q query) text(name string, max int) (string, error) {
	s := strings.TrimSpace(q.values.Get(name))
	if n := utf8.RuneCountInString(s); n > max {
		return "", memory.Invalidf(name, "is %d characters long: at most %d are allowed", n, max)
	}
	return s, nil
}

// renamed reads a parameter that has an older, deprecated name: name, or
// old when only that is given (both is refused). It returns the value and
// the name the caller used, so that an error about the value names what was
// sent.
func (q query) renamed(name, old string, max int) (value, used string, err error) {
	used = name
	if q.values.Has(old) {
		if q.values.Has(name) {
			return "", old, memory.Invalidf(old, "%s is the deprecated name of %s: give %s only", old, name, name)
		}
		used = old
	}
	value, err = q.text(used, max)
	return value, used, err
}

// asField names an engine error about field as the caller's parameter
// used, when the two differ (a deprecated name, or a name of the API for
// what the engine calls otherwise).
func asField(err error, field, used string) error {
	var me *memory.Error
	if field != used && errors.As(err, &me) && me.Field == field {
		renamed := *me
		renamed.Field = used
		return &renamed
	}
	return err
}

// intRange returns a whole-number parameter in [lo, hi], or def when absent.
func (q query) intRange(name string, def, lo, hi int) (int, error) {
	s := strings.TrimSpace(q.values.Get(name))
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, memory.Invalidf(name, "invalid %s %q: use a whole number from %d to %d", name, s, lo, hi)
	}
	return n, nil
}

// boolean returns a true/false parameter, or nil when absent.
func (q query) boolean(name string) (*bool, error) {
	switch s := strings.TrimSpace(q.values.Get(name)); s {
	case "":
		return nil, nil
	case "true":
		return pointerTo(true), nil
	case "false":
		return pointerTo(false), nil
	default:
		return nil, memory.Invalidf(name, "invalid %s %q: use true or false", name, s)
	}
}

// pagination returns the page size and the id the page starts below (0 for
// the first page).
func (q query) pagination() (limit int, before int64, err error) {
	if limit, err = q.intRange("limit", defaultLimit, 1, maxLimit); err != nil {
		return 0, 0, err
	}
	if s := strings.TrimSpace(q.values.Get("cursor")); s != "" {
		before, err = strconv.ParseInt(s, 10, 64)
		if err != nil || before <= 0 {
			return 0, 0, memory.Invalidf("cursor", "invalid cursor %q: pass the next_cursor of the previous page unchanged", s)
		}
	}
	return limit, before, nil
}

// fetchSize is how many rows to ask for to fill a page of limit and learn
// whether another follows: one more, unless the engine's own cap is reached.
func fetchSize(limit int) int { return min(limit+1, maxLimit) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func pointerTo[T any](v T) *T { return &v }

// pathID reads a positive id from the path.
func pathID(c echo.Context, name string) (int64, error) {
	s := c.Param(name)
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, memory.Invalidf(name, "invalid id %q: ids are positive whole numbers", s)
	}
	return id, nil
}
