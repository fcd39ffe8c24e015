// Package migrations holds Tenure's schema as numbered goose SQL files, embedded
// in the binary, and applies them under a PostgreSQL advisory lock so that
// several replicas starting at once migrate the database exactly once.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed *.sql
var files embed.FS

// lockID is the advisory lock key held while migrating ("tenure-migrate").
const lockID int64 = 0x74656e757265_6d

// Migrator applies the embedded migrations to one database.
type Migrator struct {
	db       *sql.DB
	provider *goose.Provider
}

// New returns a Migrator for the database behind pool. Close it when done; the
// pool itself stays open.
func New(pool *pgxpool.Pool, logger *slog.Logger) (*Migrator, error) {
	if logger == nil {
		logger = slog.Default()
	}
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(lockID), lock.WithLockTimeout(1, 600))
	if err != nil {
		return nil, fmt.Errorf("migrations: locker: %w", err)
	}
	db := stdlib.OpenDBFromPool(pool)
	provider, err := goose.NewProvider(goose.DialectPostgres, db, files,
		goose.WithSessionLocker(locker),
		goose.WithDisableGlobalRegistry(true),
		goose.WithSlog(logger),
	)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("migrations: %w", err)
	}
	return &Migrator{db: db, provider: provider}, nil
}

// Close releases the database handle the Migrator opened over the pool.
func (m *Migrator) Close() error { return m.db.Close() }

// Up applies every pending migration and returns what it applied.
func (m *Migrator) Up(ctx context.Context) ([]*goose.MigrationResult, error) {
	res, err := m.provider.Up(ctx)
	if err != nil {
		return res, fmt.Errorf("migrations: up: %w", err)
	}
	return res, nil
}

// Down rolls back the most recent migration.
func (m *Migrator) Down(ctx context.Context) (*goose.MigrationResult, error) {
	res, err := m.provider.Down(ctx)
	if err != nil {
		return res, fmt.Errorf("migrations: down: %w", err)
	}
	return res, nil
}

// DownTo rolls back every migration above version (0 rolls back all of them).
func (m *Migrator) DownTo(ctx context.Context, version int64) ([]*goose.MigrationResult, error) {
	res, err := m.provider.DownTo(ctx, version)
	if err != nil {
		return res, fmt.Errorf("migrations: down to %d: %w", version, err)
	}
	return res, nil
}

// Status reports every known migration and whether it is applied.
func (m *Migrator) Status(ctx context.Context) ([]*goose.MigrationStatus, error) {
	st, err := m.provider.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrations: status: %w", err)
	}
	return st, nil
}

// Version returns the database's current version and the newest embedded one.
func (m *Migrator) Version(ctx context.Context) (current, latest int64, err error) {
	current, latest, err = m.provider.GetVersions(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("migrations: version: %w", err)
	}
	return current, latest, nil
}

// Pending returns the migrations not applied yet, the first to apply first.
func (m *Migrator) Pending(ctx context.Context) ([]*goose.MigrationStatus, error) {
	st, err := m.Status(ctx)
	if err != nil {
		return nil, err
	}
	var out []*goose.MigrationStatus
	for _, s := range st {
		if s.State == goose.StatePending {
			out = append(out, s)
		}
	}
	return out, nil
}

// UpByOne applies the next pending migration, in its own transaction under
// the migration lock like Up.
func (m *Migrator) UpByOne(ctx context.Context) (*goose.MigrationResult, error) {
	res, err := m.provider.UpByOne(ctx)
	if err != nil {
		return res, fmt.Errorf("migrations: up: %w", err)
	}
	return res, nil
}

// Up is a shorthand that applies every pending migration to the database
// behind pool.
func Up(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) error {
	m, err := New(pool, logger)
	if err != nil {
		return err
	}
	defer m.Close()
	_, err = m.Up(ctx)
	return err
}
