// Package textcheck holds the rules every piece of text and every JSON value
// must meet before Tenure stores it or searches with it. PostgreSQL refuses a
// NUL character in text and jsonb and any byte sequence that is not UTF-8, so
// such input must be refused where it enters, with a message naming the
// field, never discovered by a failed statement. Control characters other
// than tab, newline and carriage return are refused too: they have no place
// in memories people read in the console and agents paste into prompts.
//
// Text checks one string; JSON walks a JSON value (object keys and strings,
// at any depth) and bounds its nesting and encoded size; Struct applies both
// to a decoded request by its JSON field names; Document finds the first
// invalid UTF-8 in a raw JSON document, which decoding would otherwise turn
// silently into U+FFFD, and names where it lies. Every problem is an *Error
// whose Path says where inside the value it lies.
package textcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The limits of a free-form JSON value such as a working row's metadata or
// properties.
const (
	MaxDepth = 32       // levels of nested objects and arrays
	MaxSize  = 64 << 10 // bytes, as compact JSON
)

// Error is what is wrong with a value. Path is where inside the value the
// problem lies, in the API's notation (a.b[2].c); it is empty for the value
// itself.
type Error struct {
	Path   string
	Reason string
	// whole marks a problem of the value as a whole (its size, its depth),
	// reported at the value, not where the walk noticed it.
	whole bool
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Reason
	}
	return e.Path + ": " + e.Reason
}

// Text reports the first problem of s: bytes that are not UTF-8, a NUL
// character, or another control character than tab, newline and carriage
// return. Offsets count bytes from the start of s.
func Text(s string) error {
	if e := text(s); e != nil {
		return e
	}
	return nil
}

func text(s string) *Error {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				return controlError(c, i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return &Error{Reason: fmt.Sprintf("is not valid UTF-8 (byte 0x%02X at offset %d): send text encoded as UTF-8", c, i)}
		}
		i += size
	}
	return nil
}

func controlError(c byte, offset int) *Error {
	if c == 0 {
		return &Error{Reason: fmt.Sprintf("contains a NUL character (U+0000) at byte offset %d: text may not contain NUL", offset)}
	}
	return &Error{Reason: fmt.Sprintf("contains the control character U+%04X at byte offset %d: the only control characters allowed are tab, newline and carriage return", c, offset)}
}

// JSON reports the first problem of v, a value as encoding/json decodes it
// (maps with string keys, slices, strings, numbers, booleans, nil) or any
// value encoding/json can encode: a key or string that Text refuses, nesting
// deeper than MaxDepth levels, or more than MaxSize bytes as compact JSON.
func JSON(v any) error {
	w := walker{}
	if err := w.value(reflect.ValueOf(v), 0); err != nil {
		return err
	}
	return nil
}

// walker walks one JSON value, counting its encoded size as it goes.
type walker struct {
	size int
}

func (w *walker) add(n int) *Error {
	w.size += n
	if w.size > MaxSize {
		return sizeError()
	}
	return nil
}

func sizeError() *Error {
	return &Error{whole: true, Reason: fmt.Sprintf("is larger than %d bytes (%d KiB) as JSON: keep free-form values under that", MaxSize, MaxSize>>10)}
}

// value walks v at depth, the number of objects and arrays around it.
func (w *walker) value(v reflect.Value, depth int) *Error {
	for v.IsValid() && (v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer) {
		if v.IsNil() {
			return w.add(4)
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return w.add(4)
	}
	switch t := v.Type(); {
	case t == numberType:
		return w.add(len(v.String()))
	case t == rawType:
		return w.raw(v.Bytes(), depth)
	case t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) || t.Kind() == reflect.Struct:
		return w.marshaled(v, depth)
	}
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		if err := text(s); err != nil {
			return err
		}
		return w.add(encodedLen(s))
	case reflect.Bool:
		if v.Bool() {
			return w.add(4)
		}
		return w.add(5)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return w.add(len(strconv.FormatInt(v.Int(), 10)))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return w.add(len(strconv.FormatUint(v.Uint(), 10)))
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return &Error{Reason: fmt.Sprintf("holds %v, which JSON cannot encode", f)}
		}
		return w.add(len(strconv.FormatFloat(f, 'g', -1, 64)))
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return w.add(4)
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return w.add(2 + (v.Len()+2)/3*4) // base64
		}
		if depth+1 > MaxDepth {
			return depthError()
		}
		if err := w.add(2 + max(v.Len()-1, 0)); err != nil {
			return err
		}
		for i := range v.Len() {
			if err := w.value(v.Index(i), depth+1); err != nil {
				return err.under("[" + strconv.Itoa(i) + "]")
			}
		}
		return nil
	case reflect.Map:
		if v.IsNil() {
			return w.add(4)
		}
		if v.Type().Key().Kind() != reflect.String {
			return w.marshaled(v, depth)
		}
		if depth+1 > MaxDepth {
			return depthError()
		}
		// Every entry takes at least 4 bytes ("":0,): a map too large is
		// refused before its keys are sorted.
		if w.size+1+4*v.Len() > MaxSize {
			return sizeError()
		}
		if err := w.add(2 + max(v.Len()-1, 0)); err != nil {
			return err
		}
		keys := v.MapKeys()
		// Sorted, so that the problem reported is the same every time.
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, key := range keys {
			k := key.String()
			if err := text(k); err != nil {
				return &Error{Reason: fmt.Sprintf("the key %s %s", quote(k), err.Reason)}
			}
			if err := w.add(encodedLen(k) + 1); err != nil {
				return err
			}
			if err := w.value(v.MapIndex(key), depth+1); err != nil {
				return err.under(pathKey(k))
			}
		}
		return nil
	}
	return &Error{Reason: fmt.Sprintf("holds a %s, which JSON cannot encode", v.Type())}
}

// marshaled walks a value that encodes itself (a time, a struct) by what it
// encodes to.
func (w *walker) marshaled(v reflect.Value, depth int) *Error {
	if !v.CanInterface() {
		return &Error{Reason: fmt.Sprintf("holds a %s, which cannot be checked", v.Type())}
	}
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return &Error{Reason: fmt.Sprintf("cannot be encoded as JSON: %v", err)}
	}
	return w.raw(b, depth)
}

// raw walks encoded JSON.
func (w *walker) raw(b []byte, depth int) *Error {
	if e := Document(b); e != nil {
		return e.(*Error)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var decoded any
	if err := dec.Decode(&decoded); err != nil {
		return &Error{Reason: fmt.Sprintf("is not valid JSON: %v", err)}
	}
	return w.value(reflect.ValueOf(decoded), depth)
}

func depthError() *Error {
	return &Error{whole: true, Reason: fmt.Sprintf("is nested more than %d levels deep: flatten it to at most %d levels of objects and arrays", MaxDepth, MaxDepth)}
}

// under puts segment in front of e's path, on the way out of a container.
func (e *Error) under(segment string) *Error {
	switch {
	case e.whole:
	case e.Path == "":
		e.Path = segment
	case strings.HasPrefix(e.Path, "["):
		e.Path = segment + e.Path
	default:
		e.Path = segment + "." + e.Path
	}
	return e
}

// pathKey is a key as a path segment: as it is when it reads as a name,
// quoted (with Go's escapes) otherwise.
func pathKey(k string) string {
	if k != "" && !strings.ContainsAny(k, ".[]\"' ") && utf8.RuneCountInString(k) <= 64 && text(k) == nil &&
		!strings.ContainsAny(k, "\t\r\n") {
		return k
	}
	return quote(k)
}

// quote shows s in a message: quoted, and cut when long.
func quote(s string) string {
	const most = 40
	if utf8.RuneCountInString(s) > most {
		r := []rune(s)
		return strconv.Quote(string(r[:most])) + "…"
	}
	return strconv.Quote(s)
}

// encodedLen is about the length of s as a JSON string: its bytes, the
// quotes, and the escapes encoding/json writes.
func encodedLen(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			n += 5
		}
	}
	return n
}

var (
	numberType    = reflect.TypeFor[json.Number]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
)
