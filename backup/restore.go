package backup

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// A restore reads only Tenure's own backups, and runs none of what a backup
// holds. A backup is a pg_dump archive, and pg_restore would run its SQL as
// it stands: a dump whose table CHECK calls a function of its own can run
// anything the restoring role may, COPY ... TO PROGRAM included. So:
//
//  1. The archive's table of contents (pg_restore --list) must name only
//     objects of Tenure's schema at the migration version the archive's
//     goose_db_version rows record, and the data of its tables and
//     sequences. schema.txt holds those objects for every version;
//     TestSchemaObjects derives it from the migrations. Anything else (a
//     function, a table, an extension, a trigger or a constraint Tenure does
//     not have, an unknown version) is refused, naming it, before the
//     database is touched. A version newer than schema.txt (a migration
//     added without running TestSchemaObjects -update) is checked the same
//     way against a schema-only dump of what the migrations made, before
//     any row is read; a database that was empty is then emptied again.
//  2. The schema is made by Tenure's own migrations, up (or down, with
//     --force) to that version. The archive's definitions are never run, so
//     a tampered function body or CHECK in them has no effect at all.
//  3. Only rows are read from the archive: pg_restore --data-only writes the
//     archive's data as a script to a pipe, and Restore reads it without
//     running it. The rows of each COPY are sent to COPY FROM STDIN of a
//     statement Restore writes itself for a table and columns of Tenure's
//     schema; a setval's number goes to a setval Restore writes for one of
//     Tenure's sequences; any other statement is refused.
//  4. The rows are written in one transaction, as a role that cannot run
//     programs or read or write files on the server: when the connecting
//     role is a superuser (the private cluster's postgres) or may do those
//     things, a role of the transaction's own (NOLOGIN, no membership,
//     INSERT on Tenure's tables only) is created, taken with SET LOCAL ROLE
//     for the rows, and dropped before the commit. Tenure's own foreign keys,
//     secondary indexes and triggers are set aside for the rows and put back
//     (and checked) before the commit, as pg_restore does by making them
//     after the data.

// ErrForeign refuses an archive that is not a backup of Tenure's schema.
var ErrForeign = errors.New("not a Tenure backup")

// ErrUnknownVersion is what Options.Migrate returns, wrapped, for a
// version that is none of its migrations'.
var ErrUnknownVersion = errors.New("a schema version this Tenure does not know")

// archive is a backup read by inspect.
type archive struct {
	file      string
	entries   []tocEntry
	version   int64    // the schema version its goose_db_version rows record
	checked   bool     // its table of contents was checked against Tenure's schema at version
	tables    []string // Tenure's tables at version, every one with data in the archive
	sequences []string // and sequences, every one with a value in it
}

// listArchive reads the table of contents of the archive in file.
func listArchive(ctx context.Context, file string, o Options) ([]tocEntry, error) {
	bin, err := tool("pg_restore", o)
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--list", fileArg(file))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("restore: %s is not a backup pg_restore can read: %w: %s", file, err, strings.TrimSpace(stderr.String()))
	}
	entries, err := parseList(stdout.String())
	if err != nil {
		return nil, fmt.Errorf("restore: %s: %w", file, err)
	}
	return entries, nil
}

// fileArg is file as an argument of pg_restore, never taken for an option.
func fileArg(file string) string {
	if strings.HasPrefix(file, "-") {
		return "./" + file
	}
	return file
}

// inspect checks that file is a backup of Tenure's schema at the version
// its goose_db_version rows record, from its table of contents, against
// schema.txt. A version newer than schema.txt knows (a migration added
// since it was written) is checked by Restore once the migrations have
// made that version's schema (a.checked is false).
func inspect(ctx context.Context, file string, o Options) (*archive, error) {
	entries, err := listArchive(ctx, file, o)
	if err != nil {
		return nil, err
	}
	versions, err := knownSchema()
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	a := &archive{file: file, entries: entries}
	if !slices.ContainsFunc(entries, func(e tocEntry) bool { return e.key == tableData+"goose_db_version" }) {
		// Name what it holds that no version of Tenure's schema has.
		everAllowed := map[string]bool{}
		for _, objects := range versions {
			for k := range objects {
				everAllowed[k] = true
			}
		}
		if bad := refused(entries, everAllowed); len(bad) > 0 {
			return nil, fmt.Errorf("restore: %s is %w: it holds %s, which Tenure's schema does not have; nothing was restored",
				file, ErrForeign, listed(bad))
		}
		return nil, fmt.Errorf("restore: %s is %w: it holds no schema version (the rows of goose_db_version); nothing was restored", file, ErrForeign)
	}
	if a.version, err = archiveVersion(ctx, file, o); err != nil {
		return nil, err
	}
	if objects := versions[a.version]; objects != nil {
		if err := a.check(objects); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// check checks the archive's table of contents against objects, those of
// Tenure's schema at the archive's version: it may hold only those and the
// data of their tables and sequences, and must hold the data of every one.
func (a *archive) check(objects map[string]bool) error {
	if bad := refused(a.entries, objects); len(bad) > 0 {
		return fmt.Errorf("restore: %s is %w at the schema version it records (%d): it holds %s, which that schema does not have; nothing was restored",
			a.file, ErrForeign, a.version, listed(bad))
	}
	present := map[string]bool{}
	for _, e := range a.entries {
		if present[e.key] {
			return fmt.Errorf("restore: %s is %w: it holds %s twice; nothing was restored", a.file, ErrForeign, e.key)
		}
		present[e.key] = true
	}
	tables, sequences := namesOf(objects, tablePrefix), namesOf(objects, sequencePrefix)
	for _, t := range tables {
		if !present[tableData+t] {
			return fmt.Errorf("restore: %s is not a whole backup: it lacks the rows of table %s; nothing was restored", a.file, t)
		}
	}
	for _, s := range sequences {
		if !present[sequenceSet+s] {
			return fmt.Errorf("restore: %s is not a whole backup: it lacks the value of sequence %s; nothing was restored", a.file, s)
		}
	}
	a.tables, a.sequences, a.checked = tables, sequences, true
	return nil
}

// schemaOf lists the objects of the database at url as a backup's table of
// contents names them.
func schemaOf(ctx context.Context, url string, o Options) (map[string]bool, error) {
	bin, err := tool("pg_dump", o)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "tenure-schema-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "schema.dump")
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--schema-only", "--format=custom", "--no-owner", "--no-privileges",
		"--file="+file, "--dbname="+url)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("pg_dump: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	entries, err := listArchive(ctx, file, o)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, e := range entries {
		if !harmless[e.key] {
			out[e.key] = true
		}
	}
	return out, nil
}

// refused returns the keys of the entries that objects does not allow.
func refused(entries []tocEntry, objects map[string]bool) []string {
	var bad []string
	for _, e := range entries {
		if !allowed(e.key, objects) {
			bad = append(bad, e.key)
		}
	}
	return bad
}

// listed names the first few of keys.
func listed(keys []string) string {
	const most = 5
	if len(keys) <= most {
		return strings.Join(keys, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(keys[:most], ", "), len(keys)-most)
}

// archiveVersion reads the schema version the archive's goose_db_version
// rows record: the highest version_id, as goose reads it.
func archiveVersion(ctx context.Context, file string, o Options) (int64, error) {
	version := int64(-1)
	err := readData(ctx, file, []string{"--table=goose_db_version"}, o, func(schema, table string, columns []string, rows io.Reader) error {
		if schema != "public" || table != "goose_db_version" {
			return fmt.Errorf("rows of %s.%s where goose_db_version's were asked for", schema, table)
		}
		col := slices.Index(columns, "version_id")
		if col < 0 {
			return errors.New("goose_db_version's rows have no version_id")
		}
		sc := bufio.NewScanner(rows)
		for sc.Scan() {
			f := strings.Split(sc.Text(), "\t")
			if len(f) != len(columns) {
				return fmt.Errorf("goose_db_version row %q", sc.Text())
			}
			v, err := strconv.ParseInt(f[col], 10, 64)
			if err != nil {
				return fmt.Errorf("goose_db_version row %q", sc.Text())
			}
			version = max(version, v)
		}
		return sc.Err()
	}, func(string, string, int64, bool) error { return nil })
	if err != nil {
		return 0, fmt.Errorf("restore: %s: %w", file, err)
	}
	if version < 0 {
		return 0, fmt.Errorf("restore: %s is %w: its goose_db_version holds no row; nothing was restored", file, ErrForeign)
	}
	return version, nil
}

// readData runs pg_restore --data-only on file (with extra arguments) and
// reads the script it writes with scanData. Nothing of it reaches a
// database.
func readData(ctx context.Context, file string, extra []string, o Options,
	onCopy func(schema, table string, columns []string, rows io.Reader) error,
	onSetval func(schema, seq string, value int64, called bool) error) error {
	bin, err := tool("pg_restore", o)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(append([]string{"--data-only", "--file=-"}, extra...), fileArg(file))...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	err = scanData(&counter{r: stdout, progress: o.Progress}, onCopy, onSetval)
	if err != nil {
		cancel() // pg_restore may be blocked writing what is no longer read
	}
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("pg_restore: %w: %s", werr, strings.TrimSpace(stderr.String()))
	}
	return err
}

// maxLine bounds a line of the script outside the rows of a COPY.
const maxLine = 64 << 10

var setvalLine = regexp.MustCompile(`^SELECT pg_catalog\.setval\('((?:[^']|'')+)', (-?[0-9]+), (true|false)\);$`)

// scanData reads the script pg_restore --data-only writes, running none of
// it: each COPY's rows go to onCopy as COPY text (up to its "\." line) with
// the table and columns it names, and each setval's numbers go to onSetval.
// Settings, comments and pg_restore's \restrict lines are skipped; any
// other statement is refused.
func scanData(r io.Reader,
	onCopy func(schema, table string, columns []string, rows io.Reader) error,
	onSetval func(schema, seq string, value int64, called bool) error) error {
	br := bufio.NewReaderSize(r, maxLine)
	for {
		raw, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return fmt.Errorf("the backup's data holds a statement longer than %d bytes", maxLine)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if err != nil && len(raw) == 0 {
			return nil
		}
		line := strings.TrimSuffix(string(raw), "\n")
		switch {
		case line == "" || strings.HasPrefix(line, "--") || strings.HasPrefix(line, "SET ") ||
			strings.HasPrefix(line, "SELECT pg_catalog.set_config(") ||
			strings.HasPrefix(line, `\restrict `) || strings.HasPrefix(line, `\unrestrict `):
		case strings.HasPrefix(line, "COPY "):
			schema, table, columns, ok := parseCopy(line)
			if !ok {
				return fmt.Errorf("the backup's data holds a COPY Tenure's backups do not: %.200q", line)
			}
			rows := &copyRows{br: br, atStart: true}
			if err := onCopy(schema, table, columns, rows); err != nil {
				return err
			}
			if _, err := io.Copy(io.Discard, rows); err != nil {
				return err
			}
		case strings.HasPrefix(line, "SELECT pg_catalog.setval("):
			m := setvalLine.FindStringSubmatch(line)
			var schema, seq, rest string
			ok := m != nil
			if ok {
				schema, seq, rest, ok = qualified(strings.ReplaceAll(m[1], "''", "'"))
				ok = ok && rest == ""
			}
			if !ok {
				return fmt.Errorf("the backup's data holds a setval Tenure's backups do not: %.200q", line)
			}
			v, err := strconv.ParseInt(m[2], 10, 64)
			if err != nil {
				return fmt.Errorf("the backup's data holds a setval Tenure's backups do not: %.200q", line)
			}
			if err := onSetval(schema, seq, v, m[3] == "true"); err != nil {
				return err
			}
		default:
			return fmt.Errorf("the backup's data holds a statement Tenure's backups do not: %.200q", line)
		}
	}
}

// parseCopy reads "COPY public.t (a, b) FROM stdin;" as pg_dump writes it.
func parseCopy(line string) (schema, table string, columns []string, ok bool) {
	schema, table, rest, ok := qualified(strings.TrimPrefix(line, "COPY "))
	if !ok {
		return "", "", nil, false
	}
	if rest == " FROM stdin;" {
		return schema, table, nil, true
	}
	rest, ok = strings.CutPrefix(rest, " (")
	for ok {
		var col string
		col, rest, ok = ident(rest)
		if !ok {
			break
		}
		columns = append(columns, col)
		if rest == ") FROM stdin;" {
			return schema, table, columns, true
		}
		rest, ok = strings.CutPrefix(rest, ", ")
	}
	return "", "", nil, false
}

// qualified reads schema.name at the start of s.
func qualified(s string) (schema, name, rest string, ok bool) {
	schema, rest, ok = ident(s)
	if !ok {
		return "", "", "", false
	}
	if rest, ok = strings.CutPrefix(rest, "."); !ok {
		return "", "", "", false
	}
	name, rest, ok = ident(rest)
	return schema, name, rest, ok
}

// ident reads an identifier at the start of s as pg_dump writes one: bare
// (lower-case letters, digits, _ and $) or in double quotes, a quote in it
// doubled.
func ident(s string) (name, rest string, ok bool) {
	if strings.HasPrefix(s, `"`) {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] != '"' {
				b.WriteByte(s[i])
				continue
			}
			if i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
				i++
				continue
			}
			return b.String(), s[i+1:], b.Len() > 0
		}
		return "", "", false
	}
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= '0' && s[i] <= '9' || s[i] == '_' || s[i] == '$') {
		i++
	}
	return s[:i], s[i:], i > 0
}

// copyRows reads the rows of one COPY in the script, up to its "\\." line,
// which it consumes and does not return.
type copyRows struct {
	br      *bufio.Reader
	atStart bool // at the start of a line
	done    bool
	err     error
	pending []byte // the rest of the line read last, in br's buffer
}

// Read fills p with as many rows as fit: COPY FROM STDIN sends what each
// Read returns as one message.
func (c *copyRows) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && c.err == nil {
		if len(c.pending) == 0 {
			if c.done {
				break
			}
			c.next()
			continue
		}
		k := copy(p[n:], c.pending)
		c.pending = c.pending[k:]
		n += k
	}
	switch {
	case n > 0:
		return n, nil
	case c.err != nil:
		return 0, c.err
	}
	return 0, io.EOF
}

// next reads the next line, or the end of the rows, into pending.
func (c *copyRows) next() {
	if c.atStart {
		if b, _ := c.br.Peek(3); string(b) == "\\.\n" {
			_, _ = c.br.Discard(3)
			c.done = true
			return
		}
	}
	line, err := c.br.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		c.atStart = false // a long row, read in pieces
	case errors.Is(err, io.EOF) && len(line) == 0:
		c.err = errors.New("the backup's data ends inside a COPY")
	case errors.Is(err, io.EOF):
		c.atStart = false
	case err != nil:
		c.err = err
	default:
		c.atStart = true
	}
	c.pending = line
}

// Check reads the backup in file as Restore does before it writes
// anything, and fails as Restore would, with ErrForeign naming what it
// found, if file is not a backup of Tenure's schema at a version this
// Tenure knows.
func Check(ctx context.Context, file string, o Options) error {
	_, err := inspect(ctx, file, o)
	return restoreError(err)
}

// restoreError makes every error of a restore start with "restore: ".
func restoreError(err error) error {
	if err == nil || strings.HasPrefix(err.Error(), "restore: ") {
		return err
	}
	return fmt.Errorf("restore: %w", err)
}

// Restore reads a backup made by Dump, in file, into the database at url:
// the rows in one transaction, all of them or none. A database that other
// clients are connected to (a running Tenure server) is refused with
// ErrInUse, force or not, naming them. A database that holds tables is
// refused with ErrNotEmpty unless force, which replaces the rows of
// Tenure's tables. An archive that is not a backup of Tenure's schema is
// refused with ErrForeign before anything is written (see the comment at
// the top of this file). o.Migrate makes the schema; o.BeforeCommit, when
// set, writes in the restore's transaction. Every error starts with
// "restore: ".
func Restore(ctx context.Context, url, file string, force bool, o Options) error {
	return restoreError(restore(ctx, url, file, force, o))
}

func restore(ctx context.Context, url, file string, force bool, o Options) error {
	if o.Migrate == nil {
		return errors.New("restore: no migrations to make the schema with (Options.Migrate)")
	}
	a, err := inspect(ctx, file, o)
	if err != nil {
		return err
	}
	if err := refuseAttached(ctx, url, force); err != nil {
		return err
	}
	wasEmpty, err := empty(ctx, url)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if !wasEmpty && !force {
		return fmt.Errorf("restore: %w: restore into an empty one, or pass --force to replace what it holds", ErrNotEmpty)
	}
	err = o.Migrate(ctx, url, a.version)
	switch {
	case errors.Is(err, ErrUnknownVersion):
		err = fmt.Errorf("restore: %s records schema version %d: %w (a newer Tenure restores a newer backup); nothing was restored",
			file, a.version, ErrUnknownVersion)
	case err != nil:
		err = fmt.Errorf("restore: make Tenure's schema at version %d: %w", a.version, err)
	case !a.checked:
		// A version newer than schema.txt: its objects are those the
		// migrations just made.
		var objects map[string]bool
		if objects, err = schemaOf(ctx, url, o); err != nil {
			err = fmt.Errorf("restore: %w", err)
		} else {
			err = a.check(objects)
		}
	}
	if err == nil {
		err = load(ctx, url, a, o)
	}
	if err != nil && wasEmpty {
		// The database was empty: leave it so, for the next try.
		if uerr := unmake(ctx, url, o); uerr != nil {
			err = fmt.Errorf("%w; and the schema made for it could not be removed: %v", err, uerr)
		}
	}
	return err
}

// unmake removes the schema Restore made in a database that was empty,
// with the migrations down to 0 and their version table.
func unmake(ctx context.Context, url string, o Options) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	if err := o.Migrate(ctx, url, 0); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `DROP TABLE IF EXISTS public.goose_db_version`)
	return err
}

// load writes the archive's rows into Tenure's schema, which the database
// at url holds at the archive's version, in one transaction.
func load(ctx context.Context, url string, a *archive, o Options) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := loadIn(ctx, tx, a, o); err != nil {
		return fmt.Errorf("restore: %s: %w; nothing was restored", a.file, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return nil
}

func qualify(name string) string { return pgx.Identifier{"public", name}.Sanitize() }

func loadIn(ctx context.Context, tx pgx.Tx, a *archive, o Options) error {
	run := func(sql string, args ...any) error {
		_, err := tx.Exec(ctx, sql, args...)
		return err
	}
	// The columns of Tenure's tables, as the migrations made them.
	rows, err := tx.Query(ctx, `
		SELECT c.relname, a.attname FROM pg_attribute a
		JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname = ANY($1)
		  AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''`, a.tables)
	if err != nil {
		return err
	}
	columns := map[string]map[string]bool{}
	var table, column string
	if _, err := pgx.ForEachRow(rows, []any{&table, &column}, func() error {
		if columns[table] == nil {
			columns[table] = map[string]bool{}
		}
		columns[table][column] = true
		return nil
	}); err != nil {
		return err
	}
	for _, t := range a.tables {
		if columns[t] == nil {
			return fmt.Errorf("the schema made at version %d has no table %s", a.version, t)
		}
	}

	// Set aside Tenure's triggers, foreign keys and secondary indexes for the
	// rows: the rows are as the triggers left them, the foreign keys are
	// checked once the rows of every table are in, the indexes built once.
	type trigger struct{ table, name, enable string }
	var triggers []trigger
	rows, err = tx.Query(ctx, `
		SELECT c.relname, t.tgname, t.tgenabled::text FROM pg_trigger t
		JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relname = ANY($1) AND NOT t.tgisinternal AND t.tgenabled <> 'D'`, a.tables)
	if err != nil {
		return err
	}
	var tr trigger
	var enabled string
	if _, err := pgx.ForEachRow(rows, []any{&tr.table, &tr.name, &enabled}, func() error {
		tr.enable = map[string]string{"A": "ENABLE ALWAYS", "R": "ENABLE REPLICA"}[enabled]
		if tr.enable == "" {
			tr.enable = "ENABLE"
		}
		triggers = append(triggers, tr)
		return nil
	}); err != nil {
		return err
	}
	type definition struct{ table, name, def string }
	var fks, indexes []definition
	rows, err = tx.Query(ctx, `
		SELECT r.relname, c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c
		JOIN pg_class r ON r.oid = c.conrelid JOIN pg_namespace n ON n.oid = r.relnamespace
		WHERE c.contype = 'f' AND n.nspname = 'public' AND r.relname = ANY($1)
		ORDER BY r.relname, c.conname`, a.tables)
	if err != nil {
		return err
	}
	var d definition
	if _, err := pgx.ForEachRow(rows, []any{&d.table, &d.name, &d.def}, func() error {
		fks = append(fks, d)
		return nil
	}); err != nil {
		return err
	}
	rows, err = tx.Query(ctx, `
		SELECT r.relname, i.relname, pg_get_indexdef(i.oid) FROM pg_index x
		JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class r ON r.oid = x.indrelid
		JOIN pg_namespace n ON n.oid = r.relnamespace
		WHERE n.nspname = 'public' AND r.relname = ANY($1)
		  AND NOT EXISTS (SELECT FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.conrelid = x.indrelid AND c.contype IN ('p', 'u', 'x'))
		ORDER BY r.relname, i.relname`, a.tables)
	if err != nil {
		return err
	}
	if _, err := pgx.ForEachRow(rows, []any{&d.table, &d.name, &d.def}, func() error {
		indexes = append(indexes, d)
		return nil
	}); err != nil {
		return err
	}
	for _, t := range triggers {
		if err := run(`ALTER TABLE ` + qualify(t.table) + ` DISABLE TRIGGER ` + pgx.Identifier{t.name}.Sanitize()); err != nil {
			return err
		}
	}
	for _, fk := range fks {
		if err := run(`ALTER TABLE ` + qualify(fk.table) + ` DROP CONSTRAINT ` + pgx.Identifier{fk.name}.Sanitize()); err != nil {
			return err
		}
	}
	for _, ix := range indexes {
		if err := run(`DROP INDEX ` + qualify(ix.name)); err != nil {
			return err
		}
	}
	names := make([]string, len(a.tables))
	for i, t := range a.tables {
		names[i] = qualify(t)
	}
	if err := run(`TRUNCATE ` + strings.Join(names, ", ")); err != nil {
		return err
	}
	seqs := make([]string, len(a.sequences))
	for i, s := range a.sequences {
		seqs[i] = qualify(s)
	}

	role, err := restoreRole(ctx, tx, names, seqs)
	if err != nil {
		return err
	}

	// The rows.
	copied, set := map[string]bool{}, map[string]bool{}
	err = readData(ctx, a.file, nil, o, func(schema, table string, cols []string, rows io.Reader) error {
		if schema != "public" || columns[table] == nil || copied[table] {
			return fmt.Errorf("rows for %s.%s, which is not one of Tenure's tables or was written already", schema, table)
		}
		copied[table] = true
		quoted := make([]string, len(cols))
		for i, c := range cols {
			if !columns[table][c] {
				return fmt.Errorf("rows for column %s of %s, which Tenure's schema at version %d does not have", c, table, a.version)
			}
			quoted[i] = pgx.Identifier{c}.Sanitize()
		}
		sql := `COPY ` + qualify(table) + ` FROM STDIN`
		if len(cols) > 0 {
			sql = `COPY ` + qualify(table) + ` (` + strings.Join(quoted, ", ") + `) FROM STDIN`
		}
		if _, err := tx.Conn().PgConn().CopyFrom(ctx, rows, sql); err != nil {
			return fmt.Errorf("rows of %s: %w", table, err)
		}
		return nil
	}, func(schema, seq string, value int64, called bool) error {
		if schema != "public" || !slices.Contains(a.sequences, seq) || set[seq] {
			return fmt.Errorf("a value for %s.%s, which is not one of Tenure's sequences or was set already", schema, seq)
		}
		set[seq] = true
		return run(`SELECT pg_catalog.setval($1::regclass, $2, $3)`, qualify(seq), value, called)
	})
	if err != nil {
		return err
	}
	for _, t := range a.tables {
		if !copied[t] {
			return fmt.Errorf("no rows for table %s", t)
		}
	}
	for _, s := range a.sequences {
		if !set[s] {
			return fmt.Errorf("no value for sequence %s", s)
		}
	}

	if role != "" {
		if err := run(`RESET ROLE`); err != nil {
			return err
		}
		id := pgx.Identifier{role}.Sanitize()
		if err := run(`DROP OWNED BY ` + id); err != nil {
			return err
		}
		if err := run(`DROP ROLE ` + id); err != nil {
			return err
		}
	}
	for _, ix := range indexes {
		if err := run(ix.def); err != nil {
			return fmt.Errorf("index %s: %w", ix.name, err)
		}
	}
	for _, fk := range fks {
		if err := run(`ALTER TABLE ` + qualify(fk.table) + ` ADD CONSTRAINT ` + pgx.Identifier{fk.name}.Sanitize() + ` ` + fk.def); err != nil {
			return fmt.Errorf("the rows of %s break its foreign key %s: %w", fk.table, fk.name, err)
		}
	}
	for _, t := range triggers {
		if err := run(`ALTER TABLE ` + qualify(t.table) + ` ` + t.enable + ` TRIGGER ` + pgx.Identifier{t.name}.Sanitize()); err != nil {
			return err
		}
	}
	// The rows of goose_db_version were read again: they must still say the
	// version the schema was made at.
	var version int64
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version_id), -1) FROM public.goose_db_version`).Scan(&version); err != nil {
		return err
	}
	if version != a.version {
		return fmt.Errorf("its rows record schema version %d, its table of contents was read at %d", version, a.version)
	}
	if o.BeforeCommit != nil {
		if err := o.BeforeCommit(ctx, tx, a.version); err != nil {
			return err
		}
	}
	return nil
}

// restoreRole makes the transaction write the rows as a role that cannot
// run programs on the server, nor read or write its files: the connecting
// role when it cannot either, else a role of the transaction's own, which
// it returns (to drop before the commit). Such a role holds INSERT on
// Tenure's tables (tables) and the use of its sequences (seqs), and
// nothing else.
func restoreRole(ctx context.Context, tx pgx.Tx, tables, seqs []string) (string, error) {
	var super, powerful bool
	if err := tx.QueryRow(ctx, `
		SELECT r.rolsuper,
		       pg_has_role('pg_execute_server_program', 'USAGE') OR
		       pg_has_role('pg_read_server_files', 'USAGE') OR
		       pg_has_role('pg_write_server_files', 'USAGE')
		FROM pg_roles r WHERE r.rolname = current_user`).Scan(&super, &powerful); err != nil {
		return "", err
	}
	if !super && !powerful {
		return "", nil
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	role := "tenure_restore_" + hex.EncodeToString(b[:])
	id := pgx.Identifier{role}.Sanitize()
	stmts := []string{`CREATE ROLE ` + id + ` NOLOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS`}
	if !super {
		stmts = append(stmts, `GRANT `+id+` TO CURRENT_USER`) // to SET ROLE to it
	}
	stmts = append(stmts,
		`GRANT USAGE ON SCHEMA public TO `+id,
		`GRANT INSERT ON TABLE `+strings.Join(tables, ", ")+` TO `+id)
	if len(seqs) > 0 {
		stmts = append(stmts, `GRANT USAGE, UPDATE ON SEQUENCE `+strings.Join(seqs, ", ")+` TO `+id)
	}
	stmts = append(stmts, `SET LOCAL ROLE `+id)
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return "", fmt.Errorf("the role to restore as: %w", err)
		}
	}
	return role, nil
}
