package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/memory"
)

// maxImportBody bounds an import file sent to the API; larger files go
// through tenure import.
const maxImportBody = 32 << 20 // 32 MiB

// importLine is one line of an import file: the export's fields, or a
// legacy row's data_type instead of durability and category. An id is
// allowed and ignored: the importing database gives new ones.
type importLine struct {
	memory.TransferFact
	DataType *string         `json:"data_type"`
	ID       json.RawMessage `json:"id"`
}

var importLineType = reflect.TypeFor[importLine]()

// ParseImport reads an import file, JSON Lines as tenure export writes them
// (legacy rows may give data_type instead of durability and category, mapped
// by MapDataType), into one memory.ImportLine per line that is not blank. A
// line that cannot be read carries its error, naming the field at fault;
// memory.Store.Import refuses the whole file if any line is bad. Only a
// failure to read r is returned as an error.
func ParseImport(r io.Reader) ([]memory.ImportLine, error) {
	br := bufio.NewReader(r)
	var out []memory.ImportLine
	for n := 1; ; n++ {
		raw, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return nil, err
		}
		if line := bytes.TrimSpace(raw); len(line) > 0 {
			out = append(out, parseImportLine(n, line))
		}
		if err == io.EOF {
			return out, nil
		}
	}
}

// parseImportLine reads one non-blank line.
func parseImportLine(n int, raw []byte) memory.ImportLine {
	l := memory.ImportLine{Line: n, Mapping: memory.MappingAxes}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			l.Err = memory.Invalidf("", "not valid JSON: %s at byte %d", se.Error(), max(se.Offset-1, 0))
		case errors.Is(err, io.ErrUnexpectedEOF):
			l.Err = memory.Invalidf("", "not valid JSON: the line ends before the object is complete")
		default:
			l.Err = memory.Invalidf("", "not valid JSON: %v", err)
		}
		return l
	}
	if _, err := dec.Token(); err != io.EOF {
		l.Err = memory.Invalidf("", "the line holds more than one JSON value: put one fact per line")
		return l
	}
	if _, ok := v.(map[string]any); !ok {
		l.Err = memory.Invalidf("", "a line must be a JSON object (one fact), not %s", describe(v))
		return l
	}
	if err := checkShape(v, importLineType, ""); err != nil {
		l.Err = err
		return l
	}
	var line importLine
	strict := json.NewDecoder(bytes.NewReader(raw))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&line); err != nil {
		l.Err = memory.Invalidf("", "the line does not fit the import format: %v", err)
		return l
	}
	// The text of the line, as the store would keep it: UTF-8 (decoding
	// would have turned other bytes into U+FFFD), without NUL or control
	// characters.
	if err := memory.CheckDocument(raw); err != nil {
		l.Err = err
		return l
	}
	if err := memory.CheckFields(&line); err != nil {
		l.Err = err
		return l
	}
	l.Fact = line.TransferFact
	if line.DataType != nil {
		if l.Fact.Durability != "" || l.Fact.Category != "" {
			l.Err = memory.Invalidf("data_type", "data_type is the legacy form of durability and category together: give either data_type or durability and category, not both")
			return l
		}
		d, category, err := MapDataType(*line.DataType)
		if err != nil {
			l.Err = err
			return l
		}
		l.Fact.Durability, l.Fact.Category = string(d), category
		l.Mapping = "data_type:" + *line.DataType
	}
	return l
}

// importCreate imports a JSON Lines file of facts into the token's scope,
// all in one transaction, or none of it: a file with any bad line, or with
// a line of another scope, is refused with 400 naming every bad line.
// ?dry_run=true validates and reports without writing.
func (h *handlers) importCreate(c echo.Context) error {
	q, err := newQuery(c, "dry_run")
	if err != nil {
		return err
	}
	dryRun, err := q.boolean("dry_run")
	if err != nil {
		return err
	}
	body, err := readBody(c, maxImportBody)
	if err != nil {
		return err
	}
	lines, err := ParseImport(bytes.NewReader(body))
	if err != nil {
		return memory.Invalidf("", "the request body could not be read: %v", err)
	}
	opts := memory.ImportOptions{DryRun: dryRun != nil && *dryRun, Scope: callerToken(c).Scope}
	report, err := h.store.Import(c.Request().Context(), actor(c), lines, opts)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if opts.DryRun || report.Facts == 0 {
		status = http.StatusOK
	}
	return c.JSON(status, report)
}
