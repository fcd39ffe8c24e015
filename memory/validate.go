package memory

import (
	"errors"
	"slices"
	"strings"

	"github.com/tenurehq/tenure/internal/textcheck"
)

// The limits of a free-form JSON value, a working row's metadata or
// properties: its nesting and its size as compact JSON.
const (
	MaxJSONDepth = textcheck.MaxDepth
	MaxJSONSize  = textcheck.MaxSize
)

// CheckText refuses text PostgreSQL cannot store or that has no place in a
// memory: bytes that are not UTF-8, a NUL character, or a control character
// other than tab, newline and carriage return. The error is CodeInvalid and
// names field. Every edge (API, MCP, console, import) calls it, or CheckFields,
// before anything reaches the database; the engine calls it again where it
// writes.
func CheckText(field, s string) error {
	return invalid(field, textcheck.Text(s))
}

// CheckJSON refuses a free-form JSON value (metadata, properties) with a key
// or string CheckText refuses, nested deeper than MaxJSONDepth levels or
// larger than MaxJSONSize bytes as JSON. The error names field and the path
// inside the value, such as metadata.tags[2].
func CheckJSON(field string, v any) error {
	if v == nil {
		return nil
	}
	return invalid(field, textcheck.JSON(v))
}

// CheckFields applies CheckText to every string of a decoded request (a
// struct, by its JSON field names) and CheckJSON to every free-form value in
// it; the error names the field by its path, such as nodes[2].content.
func CheckFields(v any) error {
	return invalid("", textcheck.Struct(v))
}

// CheckDocument refuses a raw JSON document (a request body, an import
// line, MCP arguments) that holds bytes that are not UTF-8, naming the key or
// string they lie in. Decoders turn such bytes into U+FFFD without a word,
// so this is checked before decoding, or on the bytes that were decoded.
func CheckDocument(data []byte) error {
	return invalid("", textcheck.Document(data))
}

// CheckParams applies CheckText to the names and values of a query string or
// a posted form, in the order of the names; the error names the parameter.
func CheckParams(params map[string][]string) error {
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if err := textcheck.Text(k); err != nil {
			var te *textcheck.Error
			errors.As(err, &te)
			return Invalidf("", "a parameter name %s", te.Reason)
		}
		for _, v := range params[k] {
			if err := CheckText(k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// invalid turns a textcheck problem into a CodeInvalid error about field.
func invalid(field string, err error) error {
	var te *textcheck.Error
	if !errors.As(err, &te) {
		return err
	}
	path := te.Path
	switch {
	case field == "":
	case path == "":
		path = field
	case strings.HasPrefix(path, "["):
		path = field + path
	default:
		path = field + "." + path
	}
	return &Error{Code: CodeInvalid, Field: path, Message: te.Reason}
}
