package backup

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// TestRestoreRoleCannotRunPrograms: connected as the superuser, a restore
// writes rows as a role of its transaction's own that is not a superuser
// and that PostgreSQL refuses COPY ... TO PROGRAM; the role is gone with
// the transaction.
func TestRestoreRoleCannotRunPrograms(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var super bool
	if err := conn.QueryRow(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&super); err != nil || !super {
		t.Fatalf("the test connects as a superuser: %v %v", super, err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	role, err := restoreRole(ctx, tx, []string{qualify("entities")}, []string{qualify("entities_id_seq")})
	if err != nil || !strings.HasPrefix(role, "tenure_restore_") {
		t.Fatalf("restoreRole = %q, %v", role, err)
	}
	var current string
	if err := tx.QueryRow(ctx, `SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&current, &super); err != nil {
		t.Fatal(err)
	}
	if current != role || super {
		t.Errorf("rows are written as %s (superuser %v), want %s, not a superuser", current, super, role)
	}
	dir, err := os.MkdirTemp("", "tenure-role-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(dir, "ran")
	_, err = tx.Exec(ctx, `SAVEPOINT program`)
	if err == nil {
		_, err = tx.Exec(ctx, `COPY (SELECT 1) TO PROGRAM 'touch `+mark+`'`)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Errorf("COPY TO PROGRAM as the restore's role = %v, want insufficient_privilege", err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the program ran")
	}
	if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT program`); err != nil {
		t.Fatal(err)
	}
	// It may write Tenure's rows.
	if _, err := tx.Exec(ctx, `INSERT INTO entities (scope, name) VALUES ('s', 'a row')`); err != nil {
		t.Errorf("the restore's role cannot write rows: %v", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_roles WHERE rolname = $1`, role).Scan(&left); err != nil || left != 0 {
		t.Errorf("the role outlived its transaction: %d %v", left, err)
	}
}
