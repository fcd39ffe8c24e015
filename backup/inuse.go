package backup

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrInUse refuses to restore into a database that other clients are
// connected to, such as a running Tenure server: the restore would replace
// the rows under it. --force does not override it.
var ErrInUse = errors.New("the database is in use")

// Connection is another client connected to a database, as
// pg_stat_activity shows it.
type Connection struct {
	PID int
	// Application is its application_name ("tenure serve" for a Tenure
	// server); empty when it set none.
	Application string
	// Client is its address; "local socket" for a Unix-domain socket, empty
	// when PostgreSQL hides it from the role looking.
	Client string
	User   string
}

// describe names the connection's application and address.
func (c Connection) describe() string {
	app := "no application name"
	if c.Application != "" {
		app = fmt.Sprintf("%q", c.Application)
	}
	switch c.Client {
	case "":
		return app + " from an address hidden from this role"
	case "local socket":
		return app + " on a local socket"
	}
	return app + " from " + c.Client
}

// attachedGrace is how long Restore waits for connections found attached
// to go before it refuses: a server just stopped, or a pool just closed,
// leaves its server processes behind for a moment.
const attachedGrace = 2 * time.Second

// Attached lists the client connections to the database at url other than
// the one it makes to look: server processes of other clients, not
// PostgreSQL's own workers (autovacuum and the like).
func Attached(ctx context.Context, url string) ([]Connection, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return attached(ctx, conn)
}

func attached(ctx context.Context, conn *pgx.Conn) ([]Connection, error) {
	rows, err := conn.Query(ctx, `
		SELECT pid, coalesce(application_name, ''),
		       CASE WHEN client_port = -1 THEN 'local socket' ELSE coalesce(host(client_addr), '') END,
		       coalesce(usename::text, '')
		FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
		ORDER BY pid`)
	if err != nil {
		return nil, fmt.Errorf("list the connections to the database: %w", err)
	}
	var out []Connection
	var c Connection
	if _, err := pgx.ForEachRow(rows, []any{&c.PID, &c.Application, &c.Client, &c.User}, func() error {
		out = append(out, c)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("list the connections to the database: %w", err)
	}
	return out, nil
}

// refuseAttached returns an ErrInUse refusal naming the connections to the
// database at url other than its own, after waiting up to attachedGrace for
// them to go, or nil when there are none. force only changes the message:
// it does not override the refusal.
func refuseAttached(ctx context.Context, url string, force bool) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var name string
	if err := conn.QueryRow(ctx, `SELECT current_database()`).Scan(&name); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	deadline := time.Now().Add(attachedGrace)
	for {
		others, err := attached(ctx, conn)
		if err != nil {
			return fmt.Errorf("restore: %w", err)
		}
		if len(others) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return inUse(name, others, force)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("restore: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// inUse is the refusal of a restore into the database name while others
// are connected to it.
func inUse(name string, others []Connection, force bool) error {
	counts := map[string]int{}
	for _, c := range others {
		counts[c.describe()]++
	}
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for i, k := range kinds {
		if n := counts[k]; n > 1 {
			kinds[i] = fmt.Sprintf("%d × %s", n, k)
		}
	}
	const most = 5
	if len(kinds) > most {
		kinds = append(kinds[:most], fmt.Sprintf("%d more", len(kinds)-most))
	}
	connections := "1 other connection is"
	if len(others) > 1 {
		connections = fmt.Sprintf("%d other connections are", len(others))
	}
	msg := fmt.Sprintf("restore: %v: %s attached to database %q (%s); nothing was restored. "+
		"Stop the Tenure server(s) using it (the tenure serve processes) and close any other client connected to it, then run the restore again",
		ErrInUse, connections, name, strings.Join(kinds, ", "))
	if force {
		msg += ". --force does not override this: it replaces the data of a database that nobody is connected to"
	}
	return &inUseError{msg: msg}
}

type inUseError struct{ msg string }

func (e *inUseError) Error() string { return e.msg }
func (e *inUseError) Unwrap() error { return ErrInUse }
