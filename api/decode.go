package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/memory"
)

// Body limits. A push batch may carry 1,000 rows of up to 10,000 characters
// each, so it gets more room than the single-object bodies.
const (
	maxBody     = 2 << 20  // 2 MiB
	maxPushBody = 16 << 20 // 16 MiB
)

// decodeBody reads the request body, at most limit bytes, as one JSON object
// into dst, a pointer to a struct. It refuses, each with a message that says
// what to fix: an empty or oversized body (413), malformed JSON (with the byte
// offset), anything after the object, unknown fields (naming the field and
// the allowed ones), values of the wrong type (naming the field, with its
// position such as nodes[2].importance, and the expected type), and text the
// store cannot keep (see decodeRequest). The body is read as JSON whatever its
// Content-Type.
func decodeBody(c echo.Context, limit int64, dst any) error {
	body, err := readBody(c, limit)
	if err != nil {
		return err
	}
	return decodeRequest(body, dst)
}

// decodeRequest is decodeJSON followed by the checks of the text it decoded,
// before any of it reaches the engine: bytes that are not UTF-8 (which
// decoding would silently turn into U+FFFD), a NUL or another control
// character than tab, newline and carriage return in any string or object
// key, and free-form values (metadata, properties) nested deeper than
// memory.MaxJSONDepth or larger than memory.MaxJSONSize; then every time and
// bounded number against memory's bounds (memory.CheckBounds: a deadline in
// the year 9999, a confidence of 5e-324). Each is a 400 naming the field,
// such as nodes[2].metadata.tags[0].
func decodeRequest(body []byte, dst any) error {
	if err := decodeJSON(body, dst); err != nil {
		return err
	}
	if err := checkText(body, dst); err != nil {
		return err
	}
	return memory.CheckBounds(dst)
}

// checkText checks the text of a body that decoded into dst.
func checkText(body []byte, dst any) error {
	if err := memory.CheckDocument(body); err != nil {
		return err
	}
	return memory.CheckFields(dst)
}

// readBody reads at most limit bytes of the request body.
func readBody(c echo.Context, limit int64) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf(
				"the request body is larger than this endpoint's limit of %s: send less at once", byteSize(limit)))
		}
		return nil, memory.Invalidf("", "the request body could not be read: %v", err)
	}
	return body, nil
}

// decodeJSON is decodeBody once the body is read; the fuzz test drives it.
// A body that decodes strictly is done in one pass; only a refused one is
// read again, generically, to say exactly what is wrong and where.
func decodeJSON(body []byte, dst any) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return memory.Invalidf("", "the request body is empty: send a JSON object")
	}
	if trimmed[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(dst); err == nil {
			if _, err := dec.Token(); err == io.EOF {
				return nil
			}
		}
	}
	return explainBody(body, dst)
}

// explainBody says why body does not decode strictly into dst.
func explainBody(body []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return syntaxError(err, dec.InputOffset())
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return memory.Invalidf("", "the request body holds more than one JSON value: remove what follows byte offset %d", end)
	}
	if _, ok := v.(map[string]any); !ok {
		return memory.Invalidf("", "the request body must be a JSON object, not %s", describe(v))
	}
	// A number its Go type cannot hold (a ttl of 2147483648, a confidence
	// of 1e400) is refused with its field's bound, as the engine refuses one
	// the type holds.
	if err := memory.CheckNumbers(v); err != nil {
		return err
	}
	if err := checkShape(v, reflect.TypeOf(dst).Elem(), ""); err != nil {
		return err
	}
	strict := json.NewDecoder(bytes.NewReader(body))
	strict.DisallowUnknownFields()
	if err := strict.Decode(dst); err != nil {
		// checkShape has already matched the body against dst's type, so
		// this is a value the type itself refuses.
		return memory.Invalidf("", "the request body does not fit this endpoint: %v", err)
	}
	return nil
}

// syntaxError explains a body that is not one well-formed JSON value.
func syntaxError(err error, offset int64) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the bad one included; name the bad one.
		return memory.Invalidf("", "the request body is not valid JSON: %s at byte offset %d", se.Error(), max(se.Offset-1, 0))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return memory.Invalidf("", "the request body is not valid JSON: it ends at byte offset %d before the value is complete", offset)
	}
	return memory.Invalidf("", "the request body is not valid JSON: %v", err)
}

// nullableField is a request field type that tells absent, null and a value
// apart; checkShape checks its value against elemType.
type nullableField interface {
	elemType() reflect.Type
}

// nullable is a request field that may be absent (Set false), null (Null
// true, for clearing a value) or a value.
type nullable[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// UnmarshalJSON records that the field was present.
func (n *nullable[T]) UnmarshalJSON(b []byte) error {
	n.Set = true
	if string(b) == "null" {
		n.Null = true
		return nil
	}
	return json.Unmarshal(b, &n.Value)
}

func (n *nullable[T]) elemType() reflect.Type { return reflect.TypeFor[T]() }

// OptionalValue is the value memory.CheckBounds checks: none when the field
// is absent or null.
func (n nullable[T]) OptionalValue() (any, bool) { return n.Value, n.Set && !n.Null }

var (
	timeType     = reflect.TypeFor[time.Time]()
	rawType      = reflect.TypeFor[json.RawMessage]()
	nullableType = reflect.TypeFor[nullableField]()
)

// checkShape matches v, decoded with UseNumber, against type t and reports
// the first unknown field or mistyped value, in key order, with its path.
// Null is accepted anywhere, as encoding/json accepts it.
func checkShape(v any, t reflect.Type, path string) error {
	if v == nil {
		return nil
	}
	if reflect.PointerTo(t).Implements(nullableType) {
		return checkShape(v, reflect.New(t).Interface().(nullableField).elemType(), path)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == rawType || t.Kind() == reflect.Interface:
		return nil
	case t == timeType:
		s, ok := v.(string)
		if !ok {
			return typeError(path, t, v)
		}
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return memory.Invalidf(path, "%q is not a time: use RFC 3339, such as 2026-12-31T17:00:00Z", s)
		}
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		if _, ok := v.(string); !ok {
			return typeError(path, t, v)
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return typeError(path, t, v)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		if !ok {
			return typeError(path, t, v)
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		switch {
		case errors.Is(err, strconv.ErrRange):
			return memory.Invalidf(path, "%s is out of range", n)
		case err != nil:
			return memory.Invalidf(path, "must be a whole number, not %s", n)
		}
		if bits := t.Bits(); bits < 64 {
			lo, hi := -int64(1)<<(bits-1), int64(1)<<(bits-1)-1
			if i < lo || i > hi {
				return memory.Invalidf(path, "%s is out of range: use %d to %d", n, lo, hi)
			}
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(json.Number)
		if !ok {
			return typeError(path, t, v)
		}
		hi := uint64(math.MaxUint64)
		if bits := t.Bits(); bits < 64 {
			hi = uint64(1)<<bits - 1
		}
		if u, err := strconv.ParseUint(string(n), 10, 64); err != nil || u > hi {
			return memory.Invalidf(path, "must be a whole number from 0 to %d, not %s", hi, n)
		}
	case reflect.Float32, reflect.Float64:
		n, ok := v.(json.Number)
		if !ok {
			return typeError(path, t, v)
		}
		f, err := strconv.ParseFloat(string(n), t.Bits())
		if err != nil || math.IsInf(f, 0) {
			return memory.Invalidf(path, "%s is out of range", n)
		}
	case reflect.Slice, reflect.Array:
		list, ok := v.([]any)
		if !ok {
			return typeError(path, t, v)
		}
		if t.Kind() == reflect.Array && len(list) > t.Len() {
			return memory.Invalidf(path, "holds %d values: at most %d are allowed", len(list), t.Len())
		}
		for i, e := range list {
			if err := checkShape(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return typeError(path, t, v)
		}
		if t.Key().Kind() != reflect.String {
			return memory.Invalidf(path, "this field cannot be set through the API")
		}
		for _, k := range sortedKeys(obj) {
			if err := checkShape(obj[k], t.Elem(), join(path, k)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return typeError(path, t, v)
		}
		fields := jsonFields(t)
		for _, k := range sortedKeys(obj) {
			f, ok := lookupField(fields, k)
			if !ok {
				names := make([]string, 0, len(fields))
				for _, f := range fields {
					if !f.deprecated {
						names = append(names, f.name)
					}
				}
				return memory.Invalidf(join(path, k), "unknown field: allowed fields are %s", strings.Join(names, ", "))
			}
			if err := checkShape(obj[k], f.typ, join(path, f.name)); err != nil {
				return err
			}
		}
	default:
		return memory.Invalidf(path, "this field cannot be set through the API")
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// jsonField is one field of a struct as encoding/json sees it. A field
// tagged deprecated (deprecated:"its new name") is still decoded but not
// offered among the allowed fields.
type jsonField struct {
	name       string
	typ        reflect.Type
	deprecated bool
}

// jsonFields lists the fields encoding/json decodes into a value of struct
// type t, in declaration order; embedded structs without a name are
// flattened.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, jsonFields(ft)...)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		out = append(out, jsonField{name: name, typ: sf.Type, deprecated: sf.Tag.Get("deprecated") != ""})
	}
	return out
}

// lookupField finds key among fields as encoding/json does: an exact match
// first, then one that differs only in case.
func lookupField(fields []jsonField, key string) (jsonField, bool) {
	for _, f := range fields {
		if f.name == key {
			return f, true
		}
	}
	for _, f := range fields {
		if strings.EqualFold(f.name, key) {
			return f, true
		}
	}
	return jsonField{}, false
}

// typeError names the type a field needs and the kind of value it got.
func typeError(path string, want reflect.Type, got any) error {
	return memory.Invalidf(path, "must be %s, not %s", expected(want), describe(got))
}

// expected names a Go type as a JSON value.
func expected(t reflect.Type) string {
	if t == timeType {
		return "an RFC 3339 time string such as 2026-12-31T17:00:00Z"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		switch e := expected(t.Elem()); e {
		case "a string", "a whole number", "a number", "an object":
			return "an array of " + strings.TrimPrefix(strings.TrimPrefix(e, "a "), "an ") + "s"
		}
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a JSON value"
}

// describe names the kind of a decoded JSON value.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "the number " + string(v)
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a JSON value"
}

func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
