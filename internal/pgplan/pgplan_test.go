package pgplan

import (
	"context"
	"errors"
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
	url := pgtest.NewURL(t)
	out := map[string]*pgx.Conn{}
	for name, mode := range map[string]pgx.QueryExecMode{
		"describe": pgx.QueryExecModeCacheDescribe, "prepared": pgx.QueryExecModeCacheStatement,
	} {
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		cfg.DefaultQueryExecMode = mode
		conn, err := pgx.ConnectConfig(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		out[name] = conn
	}
	return out
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
