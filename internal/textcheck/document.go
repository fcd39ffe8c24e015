package textcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Document reports the first byte of data, a JSON document, that is not
// UTF-8, with the path of the string or key it lies in. Decoders replace such
// bytes with U+FFFD without a word, so they are looked for in the raw
// document, before it is decoded. When data is not well-formed JSON the path
// is as much of it as could be followed.
func Document(data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	off := invalidOffset(data)
	e := &Error{Reason: fmt.Sprintf("is not valid UTF-8 (byte 0x%02X at offset %d of the JSON document): send text encoded as UTF-8", data[off], off)}
	path, key, inKey := pathAt(data, int64(off))
	e.Path = path
	if inKey {
		e.Reason = fmt.Sprintf("the key %s %s", quote(key), e.Reason)
	}
	return e
}

// invalidOffset is the offset of the first byte of data that does not begin
// a valid UTF-8 sequence.
func invalidOffset(data []byte) int {
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data) - 1
}

// frame is one open object or array while a document is followed.
type frame struct {
	object    bool
	expectKey bool   // an object whose next token is a key
	key       string // an object's current key
	index     int    // an array's current index
}

// pathAt follows data token by token up to the token holding byte off and
// returns its path; inKey says off lies in a key of the object at path.
func pathAt(data []byte, off int64) (path, key string, inKey bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []frame
	done := func() { // a value of the innermost container is complete
		if len(stack) == 0 {
			return
		}
		top := &stack[len(stack)-1]
		if top.object {
			top.expectKey = true
		} else {
			top.index++
		}
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return pathOf(stack), "", false
		}
		in := off >= start && off < dec.InputOffset()
		if s, ok := tok.(string); ok && len(stack) > 0 && stack[len(stack)-1].expectKey {
			if in {
				return pathOf(stack[:len(stack)-1]), s, true
			}
			top := &stack[len(stack)-1]
			top.key, top.expectKey = s, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{object: true, expectKey: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			done()
		default:
			if in {
				return pathOf(stack), "", false
			}
			done()
		}
	}
}

// pathOf is the path of the current value of the innermost container.
func pathOf(stack []frame) string {
	var b strings.Builder
	for _, f := range stack {
		if f.object {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(pathKey(f.key))
		} else {
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		}
	}
	return b.String()
}

// Struct checks a decoded request, a struct, by the names its fields have in
// JSON: every string with Text, every map or interface value (free-form
// metadata, properties) with JSON, inside slices, pointers and nested or
// embedded structs too. Times and raw JSON hold no text of their own.
func Struct(v any) error {
	if e := structValue(reflect.ValueOf(v)); e != nil {
		return e
	}
	return nil
}

var timeType = reflect.TypeFor[time.Time]()

func structValue(v reflect.Value) *Error {
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
	if t == timeType || t == rawType || t == numberType {
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		return text(v.String())
	case reflect.Struct:
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if sf.Anonymous && name == "" && indirect(sf.Type).Kind() == reflect.Struct {
				if e := structValue(v.Field(i)); e != nil {
					return e
				}
				continue
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			if e := structValue(v.Field(i)); e != nil {
				return e.under(pathKey(name))
			}
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil
		}
		for i := range v.Len() {
			if e := structValue(v.Index(i)); e != nil {
				return e.under("[" + strconv.Itoa(i) + "]")
			}
		}
	case reflect.Map, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		w := walker{}
		if e := w.value(v, 0); e != nil {
			e.whole = false
			return e
		}
	}
	return nil
}

func indirect(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
