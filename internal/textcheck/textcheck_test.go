package textcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"Lives in Lisbon", ""},
		{"tab\tnewline\ncr\r", ""},
		{"İstanbul — 東京 🎉", ""},
		{"\u007f and \u0085 and \u2028", ""},
		{"a\x00b", "NUL character (U+0000) at byte offset 1"},
		{"\x1b[31mred", "control character U+001B at byte offset 0"},
		{"ok\x0c", "control character U+000C at byte offset 2"},
		{"caf\xe9", "not valid UTF-8 (byte 0xE9 at offset 3)"},
		{"\xed\xa0\x80", "not valid UTF-8 (byte 0xED at offset 0)"}, // a surrogate
		{"\xc0\xaf", "not valid UTF-8"},                             // overlong
	}
	for _, tt := range tests {
		err := Text(tt.in)
		if tt.want == "" {
			if err != nil {
				t.Errorf("Text(%q) = %v, want nil", tt.in, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Reason, tt.want) || e.Path != "" {
			t.Errorf("Text(%q) = %#v, want a reason containing %q", tt.in, err, tt.want)
		}
	}
}

func deep(n int) any {
	var v any = "leaf"
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			v = map[string]any{"a": v}
		} else {
			v = []any{v}
		}
	}
	return v
}

func TestJSON(t *testing.T) {
	big := strings.Repeat("x", MaxSize)
	tests := []struct {
		name     string
		v        any
		path     string
		contains string
	}{
		{"nil", nil, "", ""},
		{"decoded", map[string]any{"a": []any{1.5, true, nil, "x", map[string]any{"b": json.Number("2")}}}, "", ""},
		{"typed", map[string][]string{"tags": {"a", "b"}}, "", ""},
		{"time", map[string]any{"at": time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, "", ""},
		{"32 levels", deep(MaxDepth), "", ""},
		{"NUL in a nested string", map[string]any{"a": []any{"ok", map[string]any{"b c": "x\x00"}}}, `a[1]."b c"`, "NUL"},
		{"NUL in a key", map[string]any{"a": map[string]any{"k\x00": 1}}, "a", `the key "k\x00" contains a NUL`},
		{"invalid UTF-8 in a key", map[string]any{"\xff": 1}, "", "the key"},
		{"control in a string", []any{"\x07"}, "[0]", "U+0007"},
		{"33 levels", deep(MaxDepth + 1), "", "nested more than 32 levels"},
		{"9999 levels", deep(9999), "", "nested more than 32 levels"},
		{"64 KiB string", map[string]any{"a": big}, "", "larger than 65536 bytes"},
		{"many keys", func() any {
			m := map[string]any{}
			for i := 0; i < 20000; i++ {
				m[strings.Repeat("k", 1+i%7)+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676))] = i
			}
			return m
		}(), "", "larger than"},
		{"a long array", make([]any, MaxSize), "", "larger than"},
		{"NaN", []any{nanValue()}, "[0]", "cannot encode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := JSON(tt.v)
			if tt.contains == "" {
				if err != nil {
					t.Fatalf("JSON = %v, want nil", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Path != tt.path || !strings.Contains(e.Reason, tt.contains) {
				t.Fatalf("JSON = %#v, want path %q and a reason containing %q", err, tt.path, tt.contains)
			}
		})
	}
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}

func TestDocument(t *testing.T) {
	tests := []struct {
		doc, path, contains string
	}{
		{`{"a": "ok"}`, "", ""},
		{"{\"a\": \"x\xffy\"}", "a", "byte 0xFF at offset 8"},
		{"{\"nodes\": [{\"content\": \"a\"}, {\"content\": \"\xc3\"}]}", "nodes[1].content", "not valid UTF-8"},
		{"{\"metadata\": {\"k\xfe\": 1}}", "metadata", "the key"},
		{"{\"a\": [1, [2, \"\xff\"]]}", "a[1][1]", "not valid UTF-8"},
		{"{\"a\": 1, \"b\": {\"c\": true}, \"d\": \"\xff\"}", "d", "not valid UTF-8"},
		{"\"\xff\"", "", "not valid UTF-8"},
		{"{\"a\": \xff}", "a", "not valid UTF-8"}, // not JSON: as far as it could be followed
	}
	for _, tt := range tests {
		err := Document([]byte(tt.doc))
		if tt.contains == "" {
			if err != nil {
				t.Errorf("Document(%q) = %v, want nil", tt.doc, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Path != tt.path || !strings.Contains(e.Reason, tt.contains) {
			t.Errorf("Document(%q) = %#v, want path %q and a reason containing %q", tt.doc, err, tt.path, tt.contains)
		}
	}
}

type inner struct {
	Text string `json:"text"`
}

type embedded struct {
	Content  string         `json:"content"`
	Metadata map[string]any `json:"metadata"`
}

type request struct {
	embedded
	Nodes   []embedded      `json:"nodes"`
	Alts    []string        `json:"alternatives"`
	Ptr     *inner          `json:"ptr"`
	At      *time.Time      `json:"at"`
	Raw     json.RawMessage `json:"raw"`
	Skipped string          `json:"-"`
	NoTag   string
	hidden  string
}

func TestStruct(t *testing.T) {
	ok := request{embedded: embedded{Content: "x", Metadata: map[string]any{"a": "b"}}, Skipped: "\x00", hidden: "\x00",
		Raw: json.RawMessage("\"\\u0000\"")}
	if err := Struct(&ok); err != nil {
		t.Fatalf("Struct = %v, want nil (skipped, unexported and raw fields are not text)", err)
	}
	tests := []struct {
		name string
		req  request
		path string
	}{
		{"embedded content", request{embedded: embedded{Content: "\x00"}}, "content"},
		{"embedded metadata", request{embedded: embedded{Metadata: map[string]any{"a": []any{"\x00"}}}}, "metadata.a[0]"},
		{"batch row", request{Nodes: []embedded{{Content: "ok"}, {Content: "a\x01"}}}, "nodes[1].content"},
		{"batch metadata depth", request{Nodes: []embedded{{Metadata: deep(41).(map[string]any)}}}, "nodes[0].metadata"},
		{"list", request{Alts: []string{"a", "b\xff"}}, "alternatives[1]"},
		{"pointer", request{Ptr: &inner{Text: "\x00"}}, "ptr.text"},
		{"no tag", request{NoTag: "\x00"}, "NoTag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Struct(tt.req)
			var e *Error
			if !errors.As(err, &e) || e.Path != tt.path {
				t.Fatalf("Struct = %#v, want path %q", err, tt.path)
			}
		})
	}
}

// FuzzText checks Text's promise: what it accepts is UTF-8 without NUL or a
// control character other than tab, newline and carriage return, and what it
// refuses is an *Error with a reason.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "plain", "a\x00b", "\xff", "\t\n\r", "\x1b[0m", "\u2028", "\xed\xa0\x80", "é\xc3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := Text(s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Reason == "" {
				t.Fatalf("Text(%q) = %#v, want an *Error with a reason", s, err)
			}
			return
		}
		if !utf8.ValidString(s) {
			t.Fatalf("Text accepted invalid UTF-8 %q", s)
		}
		for _, r := range s {
			if r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
				t.Fatalf("Text accepted control character %U in %q", r, s)
			}
		}
	})
}

// FuzzDocument feeds Document and JSON arbitrary bytes: Document refuses
// exactly the documents that are not UTF-8, and a document that decodes is
// accepted by JSON only if every key and string in it is clean.
func FuzzDocument(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, "{\"a\":\"\xff\"}", `{"a":"\u0000"}`, `[[[[1]]]]`, "{\"\xfe\":1}", `"x"`, `{"a":[1,{"b":"\ud800"}]}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		err := Document(doc)
		if (err == nil) != utf8.Valid(doc) {
			t.Fatalf("Document(%q) = %v, but utf8.Valid is %v", doc, err, utf8.Valid(doc))
		}
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		if JSON(v) == nil && !clean(v) {
			t.Fatalf("JSON accepted %q", doc)
		}
	})
}

// clean reports whether every key and string of a decoded value passes Text.
func clean(v any) bool {
	switch v := v.(type) {
	case string:
		return Text(v) == nil
	case []any:
		for _, e := range v {
			if !clean(e) {
				return false
			}
		}
	case map[string]any:
		for k, e := range v {
			if Text(k) != nil || !clean(e) {
				return false
			}
		}
	}
	return true
}
