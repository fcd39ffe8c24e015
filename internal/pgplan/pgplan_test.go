package pgplan

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenurehq/tenure/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// conns returns a connection of a fresh database for each way Tenure's pools
// send statements: planned at each execution (the process's pools), and
// prepared (pgx's default, the tests' pools).
func conns(t *testing.T) map[string]*pgx.Conn {
	t.Helper()
	c, _ := tracedConns(t)
	return c
}

// planCounts returns how often the statement sql was planned generic and
// custom on conn.
func planCounts(t *testing.T, conn *pgx.Conn, sql string) (generic, custom int64) {
	t.Helper()
	err := conn.QueryRow(context.Background(),
		`SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1`, sql).Scan(&generic, &custom)
	if err != nil {
		t.Fatalf("plans of %q: %v", sql, err)
	}
	return generic, custom
}

// mode returns the connection's plan_cache_mode.
func mode(t *testing.T, conn *pgx.Conn) string {
	t.Helper()
	var m string
	if err := conn.QueryRow(context.Background(), "SHOW plan_cache_mode").Scan(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGenericPlansOnceAndLeavesTheConnectionAsItWas(t *testing.T) {
	ctx := context.Background()
	const count = `SELECT count(*) FROM generate_series(1, $1::integer) g WHERE g > $2::integer`
	for name, conn := range conns(t) {
		g := Generic{Conn: conn}
		for i, c := range []struct{ n, above, want int }{{10, 0, 10}, {10, 7, 3}, {100, 50, 50}, {5, 9, 0}, {1000, 1, 999}, {3, 1, 2}, {40, 39, 1}} {
			var got int
			if err := g.QueryRow(ctx, count, c.n, c.above).Scan(&got); err != nil {
				t.Fatalf("%s: run %d: %v", name, i, err)
			}
			if got != c.want {
				t.Errorf("%s: count of %d above %d = %d, want %d", name, c.n, c.above, got, c.want)
			}
		}
		// Seven runs: past the five custom plans PostgreSQL tries first when
		// left to choose.
		if generic, custom := planCounts(t, conn, count); generic != 7 || custom != 0 {
			t.Errorf("%s: %d generic and %d custom plans, want 7 and 0", name, generic, custom)
		}
		if m := mode(t, conn); m != "auto" {
			t.Errorf("%s: plan_cache_mode after the statements = %s, want auto", name, m)
		}
	}
}

func TestGenericRows(t *testing.T) {
	ctx := context.Background()
	const series = `SELECT g, repeat('x', g) FROM generate_series(1, $1::integer) g ORDER BY g`
	for name, conn := range conns(t) {
		g := Generic{Conn: conn}
		rows, err := g.Query(ctx, series, 4)
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			N int
			S string
		}
		got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != 4 || got[3] != (row{4, "xxxx"}) {
			t.Errorf("%s: rows = %v, want 1..4", name, got)
		}
		// Rows left unread: closing them ends the pipeline, and the
		// connection serves the next statement.
		rows, err = g.Query(ctx, series, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if !rows.Next() {
			t.Fatalf("%s: no first row: %v", name, rows.Err())
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Errorf("%s: rows closed early: %v", name, err)
		}
		var none int
		if err := g.QueryRow(ctx, series, 0).Scan(&none, new(string)); !errors.Is(err, pgx.ErrNoRows) {
			t.Errorf("%s: QueryRow of no rows = %v, want pgx.ErrNoRows", name, err)
		}
		if m := mode(t, conn); m != "auto" {
			t.Errorf("%s: plan_cache_mode = %s, want auto", name, m)
		}
	}
}

func TestGenericErrorsLeaveTheConnectionUsable(t *testing.T) {
	ctx := context.Background()
	for name, conn := range conns(t) {
		g := Generic{Conn: conn}
		// An error while the statement runs, after the setting took effect.
		var q int
		err := g.QueryRow(ctx, `SELECT 10 / $1::integer`, 0).Scan(&q)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "22012" {
			t.Errorf("%s: division by zero = %v, want SQLSTATE 22012", name, err)
		}
		rows, err := g.Query(ctx, `SELECT 10 / g FROM generate_series($1::integer, 0, -1) g`, 3)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
		}
		if !errors.As(err, &pgErr) || pgErr.Code != "22012" {
			t.Errorf("%s: division by zero on the fourth row = %v, want SQLSTATE 22012", name, err)
		}
		// An error in preparing: nothing is sent after it.
		if _, err := g.Query(ctx, `SELECT no_such_column FROM pg_class WHERE oid = $1`, 1); err == nil {
			t.Errorf("%s: a statement that cannot be prepared ran", name)
		}
		if m := mode(t, conn); m != "auto" {
			t.Errorf("%s: plan_cache_mode after the errors = %s, want auto", name, m)
		}
		if err := g.QueryRow(ctx, `SELECT 10 / $1::integer`, 5).Scan(&q); err != nil || q != 2 {
			t.Errorf("%s: after the errors, 10 / 5 = %d, %v", name, q, err)
		}
	}
}

func TestGenericExec(t *testing.T) {
	ctx := context.Background()
	for name, conn := range conns(t) {
		if _, err := conn.Exec(ctx, `CREATE TEMPORARY TABLE t (n integer)`); err != nil {
			t.Fatal(err)
		}
		g := Generic{Conn: conn}
		tag, err := g.Exec(ctx, `INSERT INTO t SELECT generate_series(1, $1::integer)`, 3)
		if err != nil || tag.String() != "INSERT 0 3" {
			t.Errorf("%s: Exec = %q, %v; want INSERT 0 3", name, tag, err)
		}
		if _, err := g.Exec(ctx, `INSERT INTO t VALUES (1 / $1::integer)`, 0); err == nil {
			t.Errorf("%s: Exec of a division by zero succeeded", name)
		}
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 3 {
			t.Errorf("%s: %d rows, %v; want the 3 of the first Exec", name, n, err)
		}
	}
}

// pipelines records the pipelines a connection sends, each as its
// statements, and every statement sent on its own as a pipeline of one.
type pipelines struct{ sent [][]string }

func (p *pipelines) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	p.sent = append(p.sent, []string{d.SQL})
	return ctx
}
func (p *pipelines) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (p *pipelines) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	var stmts []string
	for _, q := range d.Batch.QueuedQueries {
		stmts = append(stmts, q.SQL)
	}
	p.sent = append(p.sent, stmts)
	return ctx
}
func (p *pipelines) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (p *pipelines) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// tracedConns is conns with the pipelines each connection sends recorded;
// the connections reach one database, and a test that makes the server
// send a notice (a warning) on one fails.
func tracedConns(t *testing.T) (map[string]*pgx.Conn, map[string]*pipelines) {
	t.Helper()
	url := pgtest.NewURL(t)
	out, traces := map[string]*pgx.Conn{}, map[string]*pipelines{}
	for name, mode := range map[string]pgx.QueryExecMode{
		"describe": pgx.QueryExecModeCacheDescribe, "prepared": pgx.QueryExecModeCacheStatement,
	} {
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		cfg.DefaultQueryExecMode = mode
		traces[name] = &pipelines{}
		cfg.Tracer = traces[name]
		// Nothing here may make the server warn: a warning for every
		// statement would fill its log.
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
			t.Errorf("%s: the server said %s: %s", name, n.Severity, n.Message)
		}
		conn, err := pgx.ConnectConfig(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		out[name] = conn
	}
	return out, traces
}

// other returns the connection of conns that is not name's.
func other(conns map[string]*pgx.Conn, name string) *pgx.Conn {
	for n, c := range conns {
		if n != name {
			return c
		}
	}
	return nil
}

func TestSnapshotReadsOneSnapshotInItsStatementsPipelines(t *testing.T) {
	ctx := context.Background()
	conns, traces := tracedConns(t)
	if _, err := conns["describe"].Exec(ctx, `CREATE TABLE t (n integer)`); err != nil {
		t.Fatal(err)
	}
	const count = `SELECT count(*) FROM t WHERE n > $1::integer`
	for name, conn := range conns {
		for _, ended := range []string{"by its last statement", "by End"} {
			s := NewSnapshot(conn)
			var before, after, now int
			if err := s.QueryRow(ctx, count, 0).Scan(&before); err != nil {
				t.Fatal(err)
			}
			// A write the snapshot must not see, committed between its
			// statements.
			if _, err := other(conns, name).Exec(ctx, `INSERT INTO t VALUES (1)`); err != nil {
				t.Fatal(err)
			}
			traces[name].sent = nil
			if ended == "by its last statement" {
				s.Last()
			}
			if err := s.QueryRow(ctx, count, 0).Scan(&after); err != nil {
				t.Fatal(err)
			}
			if after != before {
				t.Errorf("%s, ended %s: the second statement counted %d rows, the first %d: not one snapshot", name, ended, after, before)
			}
			if err := s.End(ctx); err != nil {
				t.Errorf("%s, ended %s: End: %v", name, ended, err)
			}
			want := [][]string{{setGeneric, count}, {"commit"}}
			if ended == "by its last statement" {
				want = [][]string{{setGeneric, count, "COMMIT"}}
			}
			if got := traces[name].sent; !samePipelines(got, want) {
				t.Errorf("%s, ended %s: sent %q, want %q", name, ended, got, want)
			}
			if st := conn.PgConn().TxStatus(); st != 'I' {
				t.Errorf("%s, ended %s: transaction status %q after End, want idle", name, ended, st)
			}
			if err := conn.QueryRow(ctx, count, 0).Scan(&now); err != nil || now != before+1 {
				t.Errorf("%s, ended %s: after End the connection counts %d, %v; want %d", name, ended, now, err, before+1)
			}
			if m := mode(t, conn); m != "auto" {
				t.Errorf("%s, ended %s: plan_cache_mode after the snapshot = %s, want auto", name, ended, m)
			}
		}
		// The first statement's pipeline begins the transaction.
		traces[name].sent = nil
		s := NewSnapshot(conn)
		var iso string
		if err := s.QueryRow(ctx, `SELECT current_setting($1::text)`, "transaction_isolation").Scan(&iso); err != nil {
			t.Fatal(err)
		}
		if iso != "repeatable read" {
			t.Errorf("%s: isolation %q, want repeatable read", name, iso)
		}
		if got := traces[name].sent; len(got) != 1 || len(got[0]) != 3 || got[0][0] != beginSnapshot {
			t.Errorf("%s: the first statement sent %q, want BEGIN, the setting and the statement in one pipeline", name, got)
		}
		if err := s.End(ctx); err != nil {
			t.Error(err)
		}
	}
}

// samePipelines reports whether got and want hold the same statements in
// the same pipelines, the case of a lone COMMIT aside.
func samePipelines(got, want [][]string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if len(got[i]) != len(want[i]) {
			return false
		}
		for j := range got[i] {
			if !strings.EqualFold(got[i][j], want[i][j]) {
				return false
			}
		}
	}
	return true
}

func TestSnapshotIsReadOnly(t *testing.T) {
	ctx := context.Background()
	conns := conns(t)
	// Not a temporary table: a read-only transaction may write those.
	if _, err := conns["describe"].Exec(ctx, `CREATE TABLE t (n integer)`); err != nil {
		t.Fatal(err)
	}
	for name, conn := range conns {
		s := NewSnapshot(conn)
		_, err := s.Exec(ctx, `INSERT INTO t VALUES ($1::integer)`, 1)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "25006" {
			t.Errorf("%s: an INSERT in the snapshot = %v, want SQLSTATE 25006 (read-only transaction)", name, err)
		}
		if err := s.End(ctx); err != nil {
			t.Errorf("%s: End after the failed write: %v", name, err)
		}
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d rows, %v; want none", name, n, err)
		}
	}
}

func TestSnapshotErrorsLeaveTheConnectionUsable(t *testing.T) {
	ctx := context.Background()
	const div = `SELECT 10 / $1::integer`
	for name, conn := range conns(t) {
		usable := func(when string) {
			t.Helper()
			if st := conn.PgConn().TxStatus(); st != 'I' {
				t.Errorf("%s, %s: transaction status %q after End, want idle", name, when, st)
			}
			var q int
			if err := conn.QueryRow(ctx, div, 5).Scan(&q); err != nil || q != 2 {
				t.Errorf("%s, %s: then 10 / 5 = %d, %v", name, when, q, err)
			}
			if m := mode(t, conn); m != "auto" {
				t.Errorf("%s, %s: plan_cache_mode = %s, want auto", name, when, m)
			}
		}
		var q int
		var pgErr *pgconn.PgError

		// The first statement fails: the transaction it began is rolled back.
		s := NewSnapshot(conn)
		if err := s.QueryRow(ctx, div, 0).Scan(&q); !errors.As(err, &pgErr) || pgErr.Code != "22012" {
			t.Errorf("%s: division by zero = %v, want SQLSTATE 22012", name, err)
		}
		if err := s.QueryRow(ctx, div, 5).Scan(&q); !errors.As(err, &pgErr) || pgErr.Code != "25P02" {
			t.Errorf("%s: a statement after the failed one = %v, want SQLSTATE 25P02 (transaction aborted)", name, err)
		}
		if err := s.End(ctx); err != nil {
			t.Errorf("%s: End after a failed first statement: %v", name, err)
		}
		usable("after a failed first statement")

		// The last statement fails: the COMMIT behind it is not run, and End
		// rolls back.
		s = NewSnapshot(conn)
		if err := s.QueryRow(ctx, div, 5).Scan(&q); err != nil {
			t.Fatal(err)
		}
		s.Last()
		if err := s.QueryRow(ctx, div, 0).Scan(&q); !errors.As(err, &pgErr) || pgErr.Code != "22012" {
			t.Errorf("%s: division by zero = %v, want SQLSTATE 22012", name, err)
		}
		if err := s.End(ctx); err != nil {
			t.Errorf("%s: End after a failed last statement: %v", name, err)
		}
		usable("after a failed last statement")

		// A first statement that cannot be prepared sends nothing; the next
		// one begins the transaction.
		s = NewSnapshot(conn)
		if _, err := s.Query(ctx, `SELECT no_such_column FROM pg_class WHERE oid = $1`, 1); err == nil {
			t.Errorf("%s: a statement that cannot be prepared ran", name)
		}
		var iso string
		if err := s.QueryRow(ctx, `SELECT current_setting($1::text)`, "transaction_isolation").Scan(&iso); err != nil || iso != "repeatable read" {
			t.Errorf("%s: after a statement that could not be prepared, isolation %q, %v; want repeatable read", name, iso, err)
		}
		if err := s.End(ctx); err != nil {
			t.Error(err)
		}
		usable("after a statement that could not be prepared")

		// The last statement's rows closed early: the COMMIT behind them is
		// still read; nothing can be sent after the last.
		s = NewSnapshot(conn)
		s.Last()
		rows, err := s.Query(ctx, `SELECT g FROM generate_series(1, $1::integer) g`, 1000)
		if err != nil {
			t.Fatal(err)
		}
		rows.Next()
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Errorf("%s: rows closed early: %v", name, err)
		}
		if st := conn.PgConn().TxStatus(); st != 'I' {
			t.Errorf("%s: transaction status %q after the last statement's rows, want idle (committed)", name, st)
		}
		if err := s.QueryRow(ctx, div, 5).Scan(&q); !errors.Is(err, errEnded) {
			t.Errorf("%s: a statement after the last = %v, want %v", name, err, errEnded)
		}
		if err := s.End(ctx); err != nil {
			t.Error(err)
		}
		usable("after rows closed early")
	}
}
