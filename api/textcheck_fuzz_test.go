package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/internal/textcheck"
	"github.com/tenurehq/tenure/memory"
)

// wantInvalid fails unless err is a CodeInvalid *memory.Error with a message.
func wantInvalid(t *testing.T, what string, err error) *memory.Error {
	t.Helper()
	var me *memory.Error
	if !errors.As(err, &me) || me.Code != memory.CodeInvalid || me.Message == "" {
		t.Fatalf("%s = %#v, want a CodeInvalid *memory.Error with a message", what, err)
	}
	return me
}

func TestDecodeRequestRefusesUnstorableText(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 40) + `1` + strings.Repeat(`}`, 40)
	tests := []struct {
		name, body, field, want string
		dst                     func() any
	}{
		{"NUL in content", `{"content": "a\u0000b"}`, "content", "NUL", func() any { return new(pushRequest) }},
		{"raw invalid UTF-8", "{\"content\": \"caf\xe9\"}", "content", "not valid UTF-8", func() any { return new(pushRequest) }},
		{"escaped control", `{"content": "\u001b[31m"}`, "content", "U+001B", func() any { return new(pushRequest) }},
		{"batch row", `{"nodes": [{"content": "ok"}, {"content": "\u0000"}]}`, "nodes[1].content", "NUL", func() any { return new(pushRequest) }},
		{"metadata value", `{"content": "x", "metadata": {"tags": ["a", "\u0000"]}}`, "metadata.tags[1]", "NUL", func() any { return new(pushRequest) }},
		{"metadata key", `{"content": "x", "metadata": {"k\u0000": 1}}`, "metadata", `the key "k\x00"`, func() any { return new(pushRequest) }},
		{"raw key in properties", "{\"content\": \"x\", \"properties\": {\"\xff\": 1}}", "properties", "the key", func() any { return new(pushRequest) }},
		{"metadata depth", `{"content": "x", "metadata": ` + deep + `}`, "metadata", "nested more than 32 levels", func() any { return new(pushRequest) }},
		{"metadata size", `{"content": "x", "metadata": {"a": "` + strings.Repeat("x", 70000) + `"}}`, "metadata", "larger than 65536 bytes", func() any { return new(pushRequest) }},
		{"decision alternative", `{"entity": "p", "key": "k", "decision": "d", "reasoning": "r", "alternatives": ["\u0000"]}`, "alternatives[0]", "NUL", func() any { return new(decisionRequest) }},
		{"fact entity", "{\"entity\": \"\xc3\", \"content\": \"x\"}", "entity", "UTF-8", func() any { return new(factRequest) }},
		{"patch reason", `{"version": 1, "reason": "\u0000"}`, "reason", "NUL", func() any { return new(factPatch) }},
		{"extract text", `{"text": "\u0000"}`, "text", "NUL", func() any { return new(extractRequest) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			me := wantInvalid(t, "decodeRequest", decodeRequest([]byte(tt.body), tt.dst()))
			if me.Field != tt.field || !strings.Contains(me.Message, tt.want) {
				t.Errorf("decodeRequest = %s: %s, want field %q and a message containing %q", me.Field, me.Message, tt.field, tt.want)
			}
		})
	}
	// What was accepted before still is: tab, newline, unicode, 32 levels.
	ok := `{"content": "a\tb\nc\r — 東京 🎉", "metadata": ` + strings.Repeat(`{"a":`, 32) + `1` + strings.Repeat(`}`, 32) + `}`
	if err := decodeRequest([]byte(ok), new(pushRequest)); err != nil {
		t.Errorf("decodeRequest(%s) = %v, want nil", ok, err)
	}
}

// FuzzDecodeRequest drives the decoding of the push, fact, patch, decision
// and extract bodies with what a client could send: it never panics; a
// refusal is a 400 (CodeInvalid) with a message; an accepted body is what a
// strict encoding/json decodes and holds nothing but clean text (UTF-8, no
// NUL, no control character but tab, newline and carriage return, metadata
// within its depth and size).
func FuzzDecodeRequest(f *testing.F) {
	for _, seed := range []string{
		`{"content": "x", "metadata": {"a": [1, {"b": null}]}}`,
		`{"nodes": [{"content": "a"}, {"content": "b\u0000"}]}`,
		"{\"content\": \"caf\xe9\"}",
		"{\"metadata\": {\"\xff\": 1}}",
		`{"content": "\u001b", "properties": {"k": "\u0007"}}`,
		`{"entity": "a", "key": "b", "decision": "c", "reasoning": "d", "alternatives": ["e", "\u0000"]}`,
		`{"version": 1, "content": "\ud800", "reason": "\t\n"}`,
		`{"metadata": ` + strings.Repeat(`[`, 40) + strings.Repeat(`]`, 40) + `}`,
		`{"text": "I hate mornings", "entity": "ann\u0000"}`,
		`{"content": "x"} trailing`,
		`[]`,
	} {
		for i := range textTargets() {
			f.Add([]byte(seed), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, target uint8) {
		targets := textTargets()
		newDst := targets[int(target)%len(targets)]
		dst := newDst()
		err := decodeRequest(body, dst)
		if err != nil {
			wantInvalid(t, "decodeRequest", err)
			return
		}
		if !utf8.Valid(body) {
			t.Fatalf("decodeRequest accepted invalid UTF-8 %q", body)
		}
		if err := textcheck.Struct(dst); err != nil {
			t.Fatalf("decodeRequest accepted %q holding unclean text: %v", body, err)
		}
		strict := newDst()
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(strict); err != nil {
			t.Fatalf("decodeRequest accepted %q, which encoding/json refuses: %v", body, err)
		}
		if !reflect.DeepEqual(dst, strict) {
			t.Fatalf("decodeRequest(%q) = %+v, encoding/json = %+v", body, dst, strict)
		}
	})
}

func textTargets() []func() any {
	return append(decodeTargets(), func() any { return new(extractRequest) })
}

// FuzzQuery drives the query strings of the list, recall and context routes:
// newQuery and text never panic; a refusal is CodeInvalid naming a
// parameter; a value handed on is clean text.
func FuzzQuery(f *testing.F) {
	for _, seed := range []string{
		"q=lisbon&entity=ann&limit=5",
		"q=%00",
		"entity=caf%E9",
		"q=%1b%5b31m",
		"q%00=x",
		"%ff=1",
		"q=a&q=b",
		"limit=-1&cursor=abc",
		"q=" + strings.Repeat("x", 1200),
		"entity=%F0%9F%8E%89&q=%22exact+phrase%22+-word",
		"q=%zz&entity",
	} {
		f.Add(seed)
	}
	e := echo.New()
	allowed := []string{"q", "entity", "category", "durability", "limit", "cursor"}
	f.Fuzz(func(t *testing.T, raw string) {
		req := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/", RawQuery: raw}, Header: http.Header{},
			Body: io.NopCloser(strings.NewReader(""))}
		c := e.NewContext(req, httptest.NewRecorder())
		q, err := newQuery(c, allowed...)
		if err != nil {
			wantInvalid(t, "newQuery", err)
			return
		}
		for _, name := range allowed {
			s, err := q.text(name, 1000)
			if err != nil {
				wantInvalid(t, "text", err)
				continue
			}
			if textcheck.Text(s) != nil {
				t.Fatalf("query %q: %s = %q is not clean text", raw, name, s)
			}
		}
		if _, _, err := q.pagination(); err != nil {
			wantInvalid(t, "pagination", err)
		}
	})
}

// FuzzImportText feeds the import reader lines with what a file could hold:
// it never panics, and a line it reads without error holds only clean text,
// in every field of the fact and its decision.
func FuzzImportText(f *testing.F) {
	f.Add(`{"scope":"s","entity":"ann","content":"Lives in Lisbon","durability":"long_term","category":"observation"}`)
	f.Add(`{"scope":"s","entity":"ann\u0000","content":"x","data_type":"permanent"}`)
	f.Add("{\"scope\":\"s\",\"entity\":\"ann\",\"content\":\"caf\xe9\",\"data_type\":\"permanent\"}")
	f.Add(`{"scope":"s","entity":"p","key":"k","content":"x","durability":"permanent","category":"decision","decision":{"decision":"x","reasoning":"\u001b","alternatives":["\u0000"]}}`)
	f.Add("{\"scope\":\"s\"}\n\xff\n{\"archive_reason\":\"\\u0000\"}")
	f.Fuzz(func(t *testing.T, file string) {
		lines, err := ParseImport(strings.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			if l.Err != nil {
				wantInvalid(t, "line error", l.Err)
				continue
			}
			if err := textcheck.Struct(l.Fact); err != nil {
				t.Fatalf("line %d read with unclean text: %v", l.Line, err)
			}
		}
	})
}
