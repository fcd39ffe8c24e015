package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/memory"
)

// decodeTargets are the request types FuzzDecode drives the decoder with.
func decodeTargets() []func() any {
	return []func() any{
		func() any { return new(pushRequest) },
		func() any { return new(factRequest) },
		func() any { return new(factPatch) },
		func() any { return new(decisionRequest) },
		func() any { return new(durabilityRequest) },
	}
}

func TestDecodeJSON(t *testing.T) {
	tests := []struct {
		name, body, field, want string
	}{
		{"ok", `{"content": "x", "importance": 0.5, "ttl_seconds": 60, "metadata": {"a": [1, {"b": null}]}}`, "", ""},
		{"case-insensitive names, as encoding/json", `{"Content": "x"}`, "", ""},
		{"null anywhere", `{"content": null, "importance": null, "nodes": null}`, "", ""},
		{"unknown", `{"contents": "x"}`, "contents", "unknown field: allowed fields are content,"},
		{"nested unknown", `{"nodes": [{"content": "a"}, {"content": "b"}, {"content": "c", "durabilty": "x"}]}`, "nodes[2].durabilty", "unknown field"},
		{"string for number", `{"importance": "0.5"}`, "importance", "must be a number, not a string"},
		{"number for string", `{"content": 5}`, "content", "must be a string, not the number 5"},
		{"object for array", `{"nodes": {}}`, "nodes", "must be an array of objects, not an object"},
		{"int32 overflow", `{"ttl_seconds": 3000000000}`, "ttl_seconds", "out of range"},
		{"huge number", `{"importance": 1e999}`, "importance", "out of range"},
		{"fraction", `{"ttl_seconds": 2.5}`, "ttl_seconds", "whole number"},
		{"syntax", `{"content": "x" "durability": "y"}`, "", "byte offset 16"},
		{"trailing", `{"content": "x"}]`, "", "more than one JSON value"},
		{"array", `[]`, "", "not an array"},
		{"empty", "  \n", "", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req pushRequest
			err := decodeJSON([]byte(tt.body), &req)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("decodeJSON(%s) = %v, want nil", tt.body, err)
				}
				return
			}
			var me *memory.Error
			if !errors.As(err, &me) || me.Code != memory.CodeInvalid || me.Field != tt.field || !strings.Contains(me.Message, tt.want) {
				t.Errorf("decodeJSON(%s) = %#v, want field %q and a message containing %q", tt.body, err, tt.field, tt.want)
			}
		})
	}

	t.Run("patch null versus absent", func(t *testing.T) {
		var p factPatch
		if err := decodeJSON([]byte(`{"version": 3, "deadline": null, "expires_at": "2027-01-01T00:00:00Z"}`), &p); err != nil {
			t.Fatal(err)
		}
		if !p.Deadline.Set || !p.Deadline.Null || !p.ExpiresAt.Set || p.ExpiresAt.Null || p.ExpiresAt.Value.Year() != 2027 {
			t.Errorf("patch = %+v", p)
		}
		var q factPatch
		if err := decodeJSON([]byte(`{"version": 3}`), &q); err != nil || q.Deadline.Set || q.ExpiresAt.Set {
			t.Errorf("patch without the fields = %+v, %v; want them unset", q, err)
		}
		err := decodeJSON([]byte(`{"version": 3, "deadline": 5}`), &q)
		var me *memory.Error
		if !errors.As(err, &me) || me.Field != "deadline" || !strings.Contains(me.Message, "RFC 3339") {
			t.Errorf("deadline 5 = %v, want the field and RFC 3339 named", err)
		}
	})
}

// FuzzDecode checks that the decoder never panics, that every refusal is a
// 400 with a message, and that it accepts exactly the bodies a strict
// encoding/json accepts, and decodes them the same.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"content": "x"}`,
		`{"nodes": [{"content": "a", "durability": "transient", "metadata": {"durability": "expired"}}]}`,
		`{"version": 1, "deadline": null, "confidence": 0.5}`,
		`{"entity": "a", "key": "b", "decision": "c", "reasoning": "d", "alternatives": ["e"], "decided_at": "2026-01-01T00:00:00Z"}`,
		`{"ttl_seconds": 2147483648}`,
		`{"importance": -0}`,
		`{"CONTENT": "x", "content": "y"}`,
		`{"content": "\ud800"}`,
		`{} {}`,
		`{"a":`,
		`null`,
		`[1]`,
	} {
		for i := range decodeTargets() {
			f.Add([]byte(seed), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, target uint8) {
		targets := decodeTargets()
		newDst := targets[int(target)%len(targets)]
		ours := newDst()
		err := decodeJSON(body, ours)

		theirs := newDst()
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		strictErr := dec.Decode(theirs)
		if strictErr == nil {
			if _, terr := dec.Token(); terr != io.EOF || bytes.TrimSpace(body)[0] != '{' {
				strictErr = errors.New("not exactly one object")
			}
		}

		if err != nil {
			var me *memory.Error
			if !errors.As(err, &me) || me.Code != memory.CodeInvalid || me.Message == "" {
				t.Fatalf("decodeJSON(%q) = %#v, want a CodeInvalid *memory.Error with a message", body, err)
			}
			if strictErr == nil {
				t.Fatalf("decodeJSON(%q) refused a body encoding/json accepts: %v", body, err)
			}
			return
		}
		if strictErr != nil {
			t.Fatalf("decodeJSON(%q) accepted a body encoding/json refuses: %v", body, strictErr)
		}
		if !reflect.DeepEqual(ours, theirs) {
			t.Fatalf("decodeJSON(%q) = %+v, encoding/json = %+v", body, ours, theirs)
		}
	})
}
