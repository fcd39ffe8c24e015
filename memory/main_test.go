package memory

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/internal/pgtest"
)

func TestMain(m *testing.M) {
	// The kill test re-executes this binary as the consolidation run it kills.
	if url := os.Getenv(killChildURL); url != "" {
		os.Exit(killChild(url, os.Getenv(killChildNow)))
	}
	pgtest.Main(m)
}

// explain returns the plan PostgreSQL chooses for sql with args, one line
// per plan line.
func explain(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) string {
	t.Helper()
	rows, err := pool.Query(context.Background(), "EXPLAIN "+sql, args...)
	return planText(t, rows, err)
}

// planText returns the lines of an EXPLAIN's rows as one text.
func planText(t *testing.T, rows pgx.Rows, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}
