package memory

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bounds on every number and time a writer can send. They are defined here
// once; every edge (the API, MCP, the console's forms, import lines) applies
// them before a value reaches the engine, and the engine applies them again
// where it writes (pushes, the promotion of a row's properties, facts,
// decisions, import). Each refusal is CodeInvalid, names the field and says
// the allowed range. RELIABILITY.md, "Bounds on every number and time", says
// how they are tested.

// MinTime and MaxTime bound every instant a writer sends (a deadline,
// expires_at, decided_at, the times of an import line), both included.
//
// MinTime is the Unix epoch: no memory is older, and it keeps out the year
// 0000 and Go's zero time (0001-01-01), which the engine reads as "not
// given".
//
// MaxTime is far enough that no real memory reaches it and early enough that
// what is stored or derived from it stays representable on every path.
// PostgreSQL keeps instants to the year 294276, but Go writes RFC 3339 (every
// JSON answer) only up to the year 9999, and a time may be shown in a zone up
// to 14 hours ahead of UTC or moved by what the code adds to it (a ttl of up
// to 365 days, a half-life of up to 100 years). The 999 years left before
// 9999 cover all of that. The one derived instant that may lie further out,
// forget_at (the decay arithmetic reaches up to 10^11 seconds, about 3,169
// years, past a fact's anchor), is clamped to MaxTime by the database
// (migrations/00028_bounds.sql): a fact forgotten later than that is, in
// practice, never forgotten.
var (
	MinTime = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(9000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// MinUnit is the least confidence or importance above 0: each is 0, or
// from MinUnit to 1. Below MinUnit a value says nothing that 0 does not (the
// archive floor is 0.10, the console shows three decimals), and it invites
// float underflow: PostgreSQL refuses a product of two non-zero numbers that
// rounds to 0 (5e-324 x 0.5), and the brief's ranking and the decay compute
// such products for every fact.
const MinUnit = 0.001

// MaxTTLSeconds is the longest explicit ttl of a working row: 365 days.
const MaxTTLSeconds = 365 * 24 * 3600

// A Bound is the range of one kind of number a writer sends, and the one
// sentence every surface refuses a number outside it with.
type Bound struct {
	min, max float64
	zero     bool   // 0 is allowed besides [min, max]
	whole    bool   // whole numbers only
	allowed  string // what to send instead, as a refusal says it
}

// The bounds of the numbers writers send.
var (
	// UnitBound bounds a confidence or an importance.
	UnitBound = Bound{min: MinUnit, max: 1, zero: true,
		allowed: "use 0, or a number from 0.001 to 1"}
	// TTLBound bounds a working row's ttl_seconds.
	TTLBound = Bound{min: 1, max: MaxTTLSeconds, whole: true,
		allowed: "use a whole number of seconds from 1 to 31536000 (365 days)"}
	// CountBound bounds a count a writer sends, such as the extraction_count
	// of an import line.
	CountBound = Bound{min: 1, max: math.MaxInt32, whole: true,
		allowed: "use a whole number from 1 to 2147483647"}
	// VersionBound bounds the version an edit is made from.
	VersionBound = Bound{min: 1, max: math.MaxInt32, whole: true,
		allowed: "send the version you read, a whole number from 1 to 2147483647"}
)

// fieldBounds are the bounds of the request fields that carry a bounded
// number, by their name in a request; properties.confidence is the key a
// working row's properties guide consolidation with.
var fieldBounds = map[string]Bound{
	"confidence":            UnitBound,
	"importance":            UnitBound,
	"properties.confidence": UnitBound,
	"ttl_seconds":           TTLBound,
	"extraction_count":      CountBound,
	"version":               VersionBound,
}

// BoundOf returns the bound of the request field called name (confidence,
// importance, properties.confidence, ttl_seconds, extraction_count,
// version), and false for a field without one.
func BoundOf(name string) (Bound, bool) {
	b, ok := fieldBounds[name]
	return b, ok
}

// Min and Max are the least and the greatest number b allows (0 is allowed
// besides them when Allowed says so).
func (b Bound) Min() float64 { return b.min }
func (b Bound) Max() float64 { return b.max }

// Whole reports whether b allows whole numbers only.
func (b Bound) Whole() bool { return b.whole }

// Allowed is what a refusal tells the writer to send, such as "use 0, or a
// number from 0.001 to 1".
func (b Bound) Allowed() string { return b.allowed }

// Contains reports whether v lies within b.
func (b Bound) Contains(v float64) bool {
	switch {
	case math.IsNaN(v), b.whole && v != math.Trunc(v):
		return false
	case b.zero && v == 0:
		return true
	}
	return v >= b.min && v <= b.max
}

// Check refuses v, naming field, when it lies outside b.
func (b Bound) Check(field string, v float64) error {
	if b.Contains(v) {
		return nil
	}
	return b.refuse(field, formatNumber(v))
}

func (b Bound) refuse(field, shown string) *Error {
	return Invalidf(field, "%s is out of range: %s", shown, b.allowed)
}

// CheckNumber checks a JSON number exactly as a request wrote it (literal),
// before it is decoded into a Go type that may not hold it, such as 1e400
// or 2147483648 for a ttl. The field at path is called name in the request
// (see BoundOf); a number of a field without a bound must still be a 64-bit
// float. A number is read as the nearest 64-bit float, as JSON decoding
// reads it: 1e-400 is 0.
func CheckNumber(path, name, literal string) error {
	f, err := strconv.ParseFloat(literal, 64)
	if b, ok := fieldBounds[name]; ok {
		if err != nil || !b.Contains(f) {
			return b.refuse(path, literal)
		}
		return nil
	}
	if err != nil {
		return Invalidf(path, "%s is out of range: a number must lie between -1.7976931348623157e308 and 1.7976931348623157e308 (a 64-bit float)", literal)
	}
	return nil
}

// CheckNumbers applies CheckNumber to every number of a JSON value decoded
// with json.Decoder.UseNumber (a request body, an import line, MCP
// arguments), in key order. A number is named by its key (rows[2].ttl_seconds
// is called ttl_seconds) and, inside the free-form properties and metadata,
// by its path from them (properties.confidence): only the keys consolidation
// reads there are bounded.
func CheckNumbers(v any) error {
	return checkNumbers(v, "", "")
}

func checkNumbers(v any, path, name string) error {
	switch v := v.(type) {
	case json.Number:
		return CheckNumber(path, name, string(v))
	case []any:
		for i, e := range v {
			if err := checkNumbers(e, path+"["+strconv.Itoa(i)+"]", name); err != nil {
				return err
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p, n := k, k
			if path != "" {
				p = path + "." + k
			}
			if name == "properties" || name == "metadata" || strings.Contains(name, ".") {
				n = name + "." + k
			}
			if err := checkNumbers(v[k], p, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// formatNumber shows v as a writer would have written it: whole numbers
// without an exponent.
func formatNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e21 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// timeRange is what a refusal of a time says is allowed.
const timeRange = "use a time from 1970-01-01T00:00:00Z to 9000-01-01T00:00:00Z"

// CheckTime refuses an instant before MinTime or after MaxTime, naming
// field.
func CheckTime(field string, t time.Time) error {
	if t.Before(MinTime) || t.After(MaxTime) {
		return Invalidf(field, "%s is out of range: %s", t.Format(time.RFC3339Nano), timeRange)
	}
	return nil
}

// MaxObservedAhead is how far past the server's clock an observation time
// (observed_at) may lie: the clocks of writers drift, and a few minutes of
// skew are not a claim about the future. Anything later is refused.
const MaxObservedAhead = 5 * time.Minute

// CheckObservedAt refuses an observation time before MinTime or more than
// MaxObservedAhead after now (the server's clock), naming field. Memory ages
// from the time a statement was observed, so a time from the future would
// keep a fact from decaying and win every supersession until then.
func CheckObservedAt(field string, t, now time.Time) error {
	if t.Before(MinTime) {
		return Invalidf(field, "%s is out of range: an observation time is from 1970-01-01T00:00:00Z to the server's clock (%s) plus %d minutes",
			t.Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339), int(MaxObservedAhead/time.Minute))
	}
	if t.After(now.Add(MaxObservedAhead)) {
		return Invalidf(field, "%s is %s ahead of the server's clock (%s): an observation cannot come from the future; at most %d minutes of clock skew are allowed (leave observed_at out to mean now)",
			t.Format(time.RFC3339Nano), roundAhead(t.Sub(now)), now.UTC().Format(time.RFC3339), int(MaxObservedAhead/time.Minute))
	}
	return nil
}

// roundAhead says a duration briefly, to the second below an hour.
func roundAhead(d time.Duration) string {
	if d < time.Hour {
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}

// ClampTime is t moved into [MinTime, MaxTime], for an instant the engine
// derives rather than one a writer sent (a deadline the classifier reads in
// a text).
func ClampTime(t time.Time) time.Time {
	switch {
	case t.Before(MinTime):
		return MinTime
	case t.After(MaxTime):
		return MaxTime
	}
	return t
}

// clampUnit is v moved into UnitBound, for a confidence the engine derives
// (an extractor's) rather than one a writer sent; NaN is 0.
func clampUnit(v float64) float64 {
	switch {
	case math.IsNaN(v), v <= 0:
		return 0
	case v < MinUnit:
		return MinUnit
	case v > 1:
		return 1
	}
	return v
}

// rowDeadline is a deadline from a working row's properties, or from the
// classifier, as promotion hands it to PostgreSQL: within [MinTime,
// MaxTime], in UTC. A row written before the bounds held may carry one
// outside them (such as 9999-12-31T23:59:59Z or 0000-01-01T00:00:00Z, which
// PostgreSQL cannot even read); a text that is not an RFC 3339 time is left
// as it is, for the database to refuse.
func rowDeadline(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if s == "" || err != nil {
		return s
	}
	return ClampTime(t).UTC().Format(time.RFC3339Nano)
}

// An Optional is a request field that may be absent or null besides holding
// a value; CheckBounds checks the value it holds. Its method has a value
// receiver.
type Optional interface {
	OptionalValue() (any, bool)
}

var (
	optionalType = reflect.TypeFor[Optional]()
	timeType     = reflect.TypeFor[time.Time]()
)

// CheckBounds checks a decoded request, a struct, by the names its fields
// have in JSON: every time with CheckTime, and every number of a field with
// a bound (BoundOf) with it, inside pointers, slices and nested or embedded
// structs. Free-form values (maps, interfaces) are left to the engine, which
// checks the properties it reads. The error names the field by its path,
// such as rows[2].ttl_seconds.
func CheckBounds(v any) error {
	return boundsValue(reflect.ValueOf(v), "", "")
}

func boundsValue(v reflect.Value, path, name string) error {
	for v.IsValid() && v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return nil
	}
	t := v.Type()
	if t.Implements(optionalType) {
		inner, ok := v.Interface().(Optional).OptionalValue()
		if !ok {
			return nil
		}
		return boundsValue(reflect.ValueOf(inner), path, name)
	}
	if t == timeType {
		return CheckTime(path, v.Interface().(time.Time))
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if b, ok := fieldBounds[name]; ok {
			return b.Check(path, float64(v.Int()))
		}
	case reflect.Float32, reflect.Float64:
		if b, ok := fieldBounds[name]; ok {
			return b.Check(path, v.Float())
		}
	case reflect.Struct:
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			n, _, _ := strings.Cut(tag, ",")
			if sf.Anonymous && n == "" && indirectType(sf.Type).Kind() == reflect.Struct {
				if err := boundsValue(v.Field(i), path, name); err != nil {
					return err
				}
				continue
			}
			if !sf.IsExported() {
				continue
			}
			if n == "" {
				n = sf.Name
			}
			p := n
			if path != "" {
				p = path + "." + n
			}
			if err := boundsValue(v.Field(i), p, n); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := boundsValue(v.Index(i), path+"["+strconv.Itoa(i)+"]", name); err != nil {
				return err
			}
		}
	}
	return nil
}

func indirectType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
