package backup

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// schemaText lists the objects of Tenure's schema at each migration
// version, as pg_restore --list names them in a backup of a database
// migrated to that version: type, schema and name, without the dump id,
// the catalog ids or the owner. Each version is written as the changes its
// migration makes to the one before. TestSchemaObjects writes it (with
// -update) from a database it migrates one version at a time, and fails
// when it no longer matches the migrations.
//
//go:embed schema.txt
var schemaText string

// knownSchema returns the objects of each version schemaText holds, read
// once.
var knownSchema = sync.OnceValues(func() (map[int64]map[string]bool, error) {
	return parseSchema(schemaText)
})

// parseSchema reads the format TestSchemaObjects writes: "version N"
// starts a version, "+ KEY" and "- KEY" add and remove objects from the
// previous version's set, "#" starts a comment.
func parseSchema(text string) (map[int64]map[string]bool, error) {
	out := map[int64]map[string]bool{}
	var cur map[string]bool
	for i, line := range strings.Split(text, "\n") {
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "version "):
			v, err := strconv.ParseInt(strings.TrimPrefix(line, "version "), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("schema.txt line %d: %q", i+1, line)
			}
			next := map[string]bool{}
			for k := range cur {
				next[k] = true
			}
			cur = next
			out[v] = cur
		case cur != nil && strings.HasPrefix(line, "+ "):
			cur[line[2:]] = true
		case cur != nil && strings.HasPrefix(line, "- "):
			delete(cur, line[2:])
		default:
			return nil, fmt.Errorf("schema.txt line %d: %q", i+1, line)
		}
	}
	return out, nil
}

// writeSchema is parseSchema's inverse, for TestSchemaObjects.
func writeSchema(versions map[int64]map[string]bool) string {
	var b strings.Builder
	b.WriteString("# Tenure's schema at each migration version, as pg_restore --list names its\n" +
		"# objects (type, schema, name), written as the changes each migration makes.\n" +
		"# Written by go test ./backup/ -run TestSchemaObjects -update: do not edit.\n")
	vs := make([]int64, 0, len(versions))
	for v := range versions {
		vs = append(vs, v)
	}
	slices.Sort(vs)
	prev := map[string]bool{}
	for _, v := range vs {
		fmt.Fprintf(&b, "\nversion %d\n", v)
		var lines []string
		for k := range prev {
			if !versions[v][k] {
				lines = append(lines, "- "+k)
			}
		}
		for k := range versions[v] {
			if !prev[k] {
				lines = append(lines, "+ "+k)
			}
		}
		slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[2:], b[2:]) })
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
		prev = versions[v]
	}
	return b.String()
}

// tocEntry is one line of pg_restore --list, such as
// "3942; 0 16673 TABLE DATA public api_tokens postgres": key is
// "TABLE DATA public api_tokens", the entry without its ids and owner.
type tocEntry struct {
	id  string
	key string
}

// parseList reads the output of pg_restore --list.
func parseList(out string) ([]tocEntry, error) {
	var entries []tocEntry
	for _, line := range strings.Split(out, "\n") {
		if line == "" || strings.HasPrefix(line, ";") {
			continue
		}
		id, rest, ok := strings.Cut(line, "; ")
		if !ok {
			return nil, fmt.Errorf("unreadable table of contents line %q", line)
		}
		// The catalog's table oid and object oid, then the entry.
		f := strings.SplitN(rest, " ", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("unreadable table of contents line %q", line)
		}
		// The owner is the last word (empty for some entries, which then
		// end with a space).
		i := strings.LastIndexByte(f[2], ' ')
		if i < 0 {
			return nil, fmt.Errorf("unreadable table of contents line %q", line)
		}
		entries = append(entries, tocEntry{id: id, key: f[2][:i]})
	}
	return entries, nil
}

// Tenure's objects are in the public schema; the entries below carry data
// for the table or sequence they name.
const (
	tablePrefix    = "TABLE public "
	sequencePrefix = "SEQUENCE public "
	tableData      = "TABLE DATA public "
	sequenceSet    = "SEQUENCE SET public "
	// Statistics of a table or index (pg_dump 18 and later) are never
	// restored; they are allowed for Tenure's own relations.
	statisticsData = "STATISTICS DATA public "
	indexPrefix    = "INDEX public "
)

// harmless are entries that some pg_dump versions write for any database
// and that Tenure never restores (Tenure restores data only).
var harmless = map[string]bool{
	"SCHEMA - public":             true,
	"COMMENT - SCHEMA public":     true,
	"EXTENSION - plpgsql":         true,
	"COMMENT - EXTENSION plpgsql": true,
}

// allowed reports whether an entry may be in a backup whose schema is
// objects: one of the objects, the data of one of its tables or sequences,
// or an entry pg_dump writes for every database.
func allowed(key string, objects map[string]bool) bool {
	switch {
	case objects[key] || harmless[key]:
		return true
	case strings.HasPrefix(key, tableData):
		return objects[tablePrefix+strings.TrimPrefix(key, tableData)]
	case strings.HasPrefix(key, sequenceSet):
		return objects[sequencePrefix+strings.TrimPrefix(key, sequenceSet)]
	case strings.HasPrefix(key, statisticsData):
		name := strings.TrimPrefix(key, statisticsData)
		return objects[tablePrefix+name] || objects[indexPrefix+name]
	}
	return false
}

// namesOf returns the sorted names of objects whose keys start with prefix.
func namesOf(objects map[string]bool, prefix string) []string {
	var out []string
	for k := range objects {
		if name, ok := strings.CutPrefix(k, prefix); ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
