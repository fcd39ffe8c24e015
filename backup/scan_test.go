package backup

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestScanData: the data script is read, not run: rows reach onCopy whole
// (a row longer than the reader's buffer too) up to the "\." line, setval
// numbers reach onSetval, settings and comments are skipped, and any other
// statement, or a COPY or setval of another shape, is refused.
func TestScanData(t *testing.T) {
	long := strings.Repeat("x", 3*maxLine+17)
	script := "--\n-- PostgreSQL database dump\n--\n\n\\restrict abc\n\nSET statement_timeout = 0;\n" +
		"SELECT pg_catalog.set_config('search_path', '', false);\n\n" +
		"COPY public.\"odd \"\"name\" (id, \"trigger\", body) FROM stdin;\n1\tt\ta\n2\tt\t" + long + "\n\\.\n\n\n" +
		"COPY public.empty FROM stdin;\n\\.\n\n" +
		"SELECT pg_catalog.setval('public.\"odd \"\"name_id_seq\"', 42, true);\n\n\\unrestrict abc\n"
	type copied struct {
		schema, table string
		columns       []string
		rows          string
	}
	var copies []copied
	var sets []string
	err := scanData(strings.NewReader(script), func(schema, table string, columns []string, rows io.Reader) error {
		b, err := io.ReadAll(rows)
		copies = append(copies, copied{schema, table, columns, string(b)})
		return err
	}, func(schema, seq string, value int64, called bool) error {
		if value != 42 || !called {
			t.Errorf("setval %s.%s %d %v", schema, seq, value, called)
		}
		sets = append(sets, schema+"."+seq)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(copies) != 2 || copies[0].table != `odd "name` || !slices.Equal(copies[0].columns, []string{"id", "trigger", "body"}) ||
		copies[0].rows != "1\tt\ta\n2\tt\t"+long+"\n" || copies[1].table != "empty" || copies[1].columns != nil || copies[1].rows != "" {
		t.Errorf("copies %.200q", copies)
	}
	if !slices.Equal(sets, []string{`public.odd "name_id_seq`}) {
		t.Errorf("setvals %q", sets)
	}

	ignore := func(string, string, []string, io.Reader) error { return nil }
	noSet := func(string, string, int64, bool) error { return nil }
	for _, bad := range []string{
		"COPY (SELECT 1) TO PROGRAM 'touch /tmp/x';\n",
		"SELECT evil();\n",
		"DROP TABLE users;\n",
		"COPY public.t (a) FROM '/etc/passwd';\n",
		"SELECT pg_catalog.setval('public.s', 1, true); SELECT evil();\n",
		"COPY public.t (a) FROM stdin;\n1\n", // no end of the rows
		strings.Repeat("-", 2*maxLine) + "\n",
	} {
		if err := scanData(strings.NewReader(bad), ignore, noSet); err == nil {
			t.Errorf("scanData(%.60q) = nil, want a refusal", bad)
		}
	}
	boom := errors.New("boom")
	if err := scanData(strings.NewReader("COPY public.t (a) FROM stdin;\n1\n\\.\n"),
		func(string, string, []string, io.Reader) error { return boom }, noSet); !errors.Is(err, boom) {
		t.Errorf("an onCopy error = %v", err)
	}
}
