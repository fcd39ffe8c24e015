package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/internal/pgtest"
)

// countOnce runs a counting query on its own connection, closed before it
// returns: a restore refuses a database anyone is connected to.
func countOnce(t *testing.T, url, query string, args ...any) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// wantCmdError checks that err is the error of command, with exit status
// code, saying each of want.
func wantCmdError(t *testing.T, err error, code int, command string, want ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s succeeded, want an error saying %q", command, want)
		return
	}
	if exitCode(err) != code || !strings.HasPrefix(err.Error(), command+": ") {
		t.Errorf("%s error = %v (exit %d), want exit %d and the error naming %s", command, err, exitCode(err), code, command)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s error = %v, want it to say %q", command, err, w)
		}
	}
}

func createUser(t *testing.T, env map[string]string, email, role string) {
	t.Helper()
	if out, _, err := runCmd(t, env, "a long enough secret\n", "user", "create", "--email", email, "--role", role, "--password-stdin"); err != nil {
		t.Fatalf("user create %s = %q, %v", email, out, err)
	}
}

// TestUserListDisableEnable: user list shows every user with their role,
// state, creation and last sign-in; disable ends the user's sessions and
// enable lets them in again, each audited as the command line; bad input
// is refused naming the command and what is allowed.
func TestUserListDisableEnable(t *testing.T) {
	url := pgtest.NewURL(t)
	env := map[string]string{"DATABASE_URL": url}
	out, _, err := runCmd(t, env, "", "user", "list")
	if err != nil || !strings.Contains(out, "No users yet") || !strings.Contains(out, "--password-stdin") {
		t.Errorf("user list on no users = %q, %v", out, err)
	}
	createUser(t, env, "boss@example.com", "admin")
	createUser(t, env, "rev@example.com", "reviewer")
	ctx := context.Background()
	pool := pgtest.Connect(t, url)
	sessions, err := auth.NewSessions(pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := sessions.Login(ctx, "rev@example.com", "a long enough secret", "ua", "ip")
	if err != nil {
		t.Fatal(err)
	}

	out, _, err = runCmd(t, env, "", "user", "list")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "EMAIL NAME ROLE DISABLED CREATED LAST SIGN-IN" {
		t.Fatalf("user list = %q, want a header and two users", out)
	}
	if f := strings.Fields(lines[1]); f[0] != "boss@example.com" || f[2] != "admin" || f[3] != "no" || lines[1][len(lines[1])-5:] != "never" {
		t.Errorf("user list row %q, want boss, admin, enabled, never signed in", lines[1])
	}
	if f := strings.Fields(lines[2]); f[0] != "rev@example.com" || f[2] != "reviewer" || strings.HasSuffix(lines[2], "never") ||
		!strings.HasSuffix(lines[2], "UTC") {
		t.Errorf("user list row %q, want rev with a last sign-in", lines[2])
	}

	out, _, err = runCmd(t, env, "", "user", "disable", "--email", "REV@example.com")
	if err != nil || !strings.Contains(out, "Disabled rev@example.com") {
		t.Fatalf("user disable = %q, %v", out, err)
	}
	if _, err := sessions.Lookup(ctx, token); err == nil {
		t.Error("the disabled user's session still works")
	}
	if _, _, err := sessions.Login(ctx, "rev@example.com", "a long enough secret", "ua", "ip"); err == nil {
		t.Error("the disabled user can sign in")
	}
	out, _, err = runCmd(t, env, "", "user", "disable", "--email", "rev@example.com")
	if err != nil || !strings.Contains(out, "already disabled") {
		t.Errorf("user disable again = %q, %v; want nothing changed", out, err)
	}
	out, _, err = runCmd(t, env, "", "user", "list", "--json")
	var listed []userRow
	if err != nil || json.Unmarshal([]byte(out), &listed) != nil || len(listed) != 2 || !listed[1].Disabled || listed[1].DisabledAt == nil ||
		listed[1].LastLoginAt == nil || listed[0].Disabled {
		t.Errorf("user list --json = %q, %v", out, err)
	}
	out, _, err = runCmd(t, env, "", "user", "enable", "--email", "rev@example.com")
	if err != nil || !strings.Contains(out, "Enabled rev@example.com") {
		t.Fatalf("user enable = %q, %v", out, err)
	}
	if _, _, err := sessions.Login(ctx, "rev@example.com", "a long enough secret", "ua", "ip"); err != nil {
		t.Errorf("sign in after enable = %v", err)
	}
	if n := countOnce(t, url, `SELECT count(*) FROM audit_log WHERE actor = 'system:cli' AND action IN ('user.disable', 'user.enable')`); n != 2 {
		t.Errorf("%d disable/enable audit rows by the command line, want 2", n)
	}

	_, _, err = runCmd(t, env, "", "user", "disable", "--email", "x@y")
	wantCmdError(t, err, 1, "user disable", "no user with email x@y")
	if err != nil && err.Error() != "user disable: no user with email x@y" {
		t.Errorf("user disable of an unknown email says %q", err)
	}
	_, _, err = runCmd(t, env, "", "user", "disable", "--email", "boss@example.com")
	wantCmdError(t, err, 1, "user disable", "boss@example.com is the last admin")
	_, _, err = runCmd(t, env, "", "user", "enable")
	wantCmdError(t, err, 2, "user enable", "--email is required")
	_, _, err = runCmd(t, env, "", "user", "disable", "--email", "not an email")
	wantCmdError(t, err, 2, "user disable", "invalid --email", "not an email address")
	_, _, err = runCmd(t, env, "", "user", "frobnicate")
	wantCmdError(t, err, 2, "user", `unknown subcommand "frobnicate"`, "create, list, disable, enable, reset-password")
	if _, _, err := runCmd(t, env, "", "user"); err == nil || !strings.Contains(err.Error(), "tenure user list") || exitCode(err) != 2 {
		t.Errorf("user without a subcommand = %v, want the usage", err)
	}
}

var printedLink = regexp.MustCompile(`(?m)^\s+(\S+)/reset-password\?token=(\S+)$`)

// TestUserResetPassword: user reset-password prints a one-time link under
// the console's address (the flag, TENURE_PUBLIC_URL, or the address serve
// listens on) that sets the user's password once.
func TestUserResetPassword(t *testing.T) {
	url := pgtest.NewURL(t)
	env := map[string]string{"DATABASE_URL": url}
	createUser(t, env, "ann@example.com", "viewer")

	for _, tc := range []struct {
		env  map[string]string
		args []string
		base string
	}{
		{nil, nil, "http://127.0.0.1:8080"},
		{map[string]string{"TENURE_ADDR": ":9090"}, nil, "http://127.0.0.1:9090"},
		{map[string]string{"TENURE_ADDR": "192.0.2.1:80"}, nil, "http://192.0.2.1:80"},
		{map[string]string{"TENURE_PUBLIC_URL": "https://tenure.example.com/"}, nil, "https://tenure.example.com"},
		{map[string]string{"TENURE_PUBLIC_URL": "https://tenure.example.com"}, []string{"--base-url", "http://localhost:8081/"}, "http://localhost:8081"},
	} {
		e := map[string]string{"DATABASE_URL": url}
		for k, v := range tc.env {
			e[k] = v
		}
		out, _, err := runCmd(t, e, "", append([]string{"user", "reset-password", "--email", "ann@example.com"}, tc.args...)...)
		m := printedLink.FindStringSubmatch(out)
		if err != nil || m == nil || m[1] != tc.base || !strings.Contains(out, "works once, until") || !strings.Contains(out, "only its hash") {
			t.Errorf("reset-password with %v %v = %q, %v; want a link under %s", tc.env, tc.args, out, err, tc.base)
		}
	}
	out, _, err := runCmd(t, env, "", "user", "reset-password", "--email", "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	token := printedLink.FindStringSubmatch(out)[2]
	pool := pgtest.Connect(t, url)
	ctx := context.Background()
	admin := auth.NewAdmin(pool, nil)
	if _, err := admin.UsePasswordReset(ctx, token, "a brand new secret", "a brand new secret", ""); err != nil {
		t.Fatalf("the printed link does not work: %v", err)
	}
	if _, err := admin.UsePasswordReset(ctx, token, "a brand new secret", "a brand new secret", ""); err == nil {
		t.Error("the printed link worked twice")
	}
	var issued int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE actor = 'system:cli' AND action = 'auth.password_reset_issued'`).Scan(&issued); err != nil || issued != 6 {
		t.Errorf("%d reset links issued audited as the command line (%v), want 6", issued, err)
	}

	_, _, err = runCmd(t, env, "", "user", "reset-password", "--email", "bob@example.com")
	wantCmdError(t, err, 1, "user reset-password", "no user with email bob@example.com")
	_, _, err = runCmd(t, env, "", "user", "reset-password", "--email", "ann@example.com", "--base-url", "ftp://example.com")
	wantCmdError(t, err, 2, "user reset-password", "invalid --base-url", "http or https")
	_, _, err = runCmd(t, env, "", "user", "reset-password")
	wantCmdError(t, err, 2, "user reset-password", "--email is required")
}

// TestTokenListRevoke: token list shows every token (its prefix, never the
// token) with its role, creation, last use, expiry and revocation; revoke
// by scope and name, or by id, stops the token at once and is audited.
func TestTokenListRevoke(t *testing.T) {
	url := pgtest.NewURL(t)
	env := map[string]string{"DATABASE_URL": url}
	out, _, err := runCmd(t, env, "", "token", "list")
	if err != nil || !strings.Contains(out, "No API tokens yet") {
		t.Errorf("token list on none = %q, %v", out, err)
	}
	var secrets []string
	for _, args := range [][]string{
		{"--scope", "home", "--name", "laptop"},
		{"--scope", "work", "--name", "laptop", "--role", "reader", "--expires-days", "30"},
	} {
		out, _, err := runCmd(t, env, "", append([]string{"token", "create"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, printedToken.FindStringSubmatch(out)[1])
	}

	out, _, err = runCmd(t, env, "", "token", "list")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "ID NAME SCOPE ROLE PREFIX CREATED LAST USED EXPIRES REVOKED" {
		t.Fatalf("token list = %q", out)
	}
	if f := strings.Fields(lines[1]); f[1] != "laptop" || f[2] != "home" || f[3] != "writer" || !strings.HasPrefix(f[4], secrets[0][:10]) ||
		strings.Join(f[len(f)-3:], " ") != "never never no" {
		t.Errorf("token list row %q", lines[1])
	}
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Error("token list shows a token itself")
		}
	}

	out, _, err = runCmd(t, env, "", "token", "revoke", "--name", "laptop", "--scope", "home")
	if err != nil || !strings.Contains(out, `Revoked writer token "laptop" for scope home`) {
		t.Fatalf("token revoke by name = %q, %v", out, err)
	}
	pool := pgtest.Connect(t, url)
	tokens := auth.NewTokens(pool, nil)
	if _, err := tokens.Authenticate(context.Background(), secrets[0]); err == nil {
		t.Error("the revoked token still authenticates")
	}
	if _, err := tokens.Authenticate(context.Background(), secrets[1]); err != nil {
		t.Errorf("the other scope's token of the same name = %v, want it untouched", err)
	}
	_, _, err = runCmd(t, env, "", "token", "revoke", "--name", "laptop", "--scope", "home")
	wantCmdError(t, err, 1, "token revoke", "already revoked", "no live token")

	var id int
	if err := pool.QueryRow(context.Background(), `SELECT id FROM api_tokens WHERE scope = 'work'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	out, _, err = runCmd(t, env, "", "token", "revoke", "--id", strconv.Itoa(id))
	if err != nil || !strings.Contains(out, `Revoked reader token "laptop" for scope work`) {
		t.Fatalf("token revoke by id = %q, %v", out, err)
	}
	out, _, err = runCmd(t, env, "", "token", "list", "--json")
	var listed []tokenRow
	if err != nil || json.Unmarshal([]byte(out), &listed) != nil || len(listed) != 2 || listed[0].RevokedAt == nil || listed[1].RevokedAt == nil ||
		listed[1].ExpiresAt == nil {
		t.Errorf("token list --json = %q, %v", out, err)
	}
	if n := countOnce(t, url, `SELECT count(*) FROM audit_log WHERE actor = 'system:cli' AND action = 'token.revoke'`); n != 2 {
		t.Errorf("%d revocations audited as the command line, want 2", n)
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--id", "999"}, 1, "no API token with id 999"},
		{[]string{"--id", strconv.Itoa(id)}, 1, "already revoked"},
		{[]string{"--name", "desk", "--scope", "home"}, 1, `no API token named "desk" in scope home`},
		{nil, 2, "name the token: --name N --scope S, or --id ID"},
		{[]string{"--name", "laptop"}, 2, "--scope is required with --name"},
		{[]string{"--scope", "home"}, 2, "--name is required with --scope"},
		{[]string{"--id", "3", "--name", "laptop", "--scope", "home"}, 2, "not both"},
		{[]string{"--id", "-3"}, 2, "token ids are positive numbers"},
		{[]string{"--name", "x", "--scope", "Home!"}, 2, "invalid scope"},
	} {
		_, _, err := runCmd(t, env, "", append([]string{"token", "revoke"}, tc.args...)...)
		wantCmdError(t, err, tc.code, "token revoke", tc.want)
	}
}

// TestBackupAndRestoreAreAudited: a backup writes backup.create into the
// database backed up, a restore writes backup.restore into the database
// restored, in the restore's transaction (after the backup's rows).
func TestBackupAndRestoreAreAudited(t *testing.T) {
	src := pgtest.NewURL(t)
	file := filepath.Join(t.TempDir(), "tenure.dump")
	if _, stderr, err := runCmd(t, map[string]string{"DATABASE_URL": src}, "", "backup", file); err != nil {
		t.Fatalf("backup = %v %q", err, stderr)
	}
	if n := countOnce(t, src, `SELECT count(*) FROM audit_log WHERE action = 'backup.create' AND actor = 'system:cli'
		AND target_type = 'database' AND target_id = current_database() AND after->>'file' = $1 AND (after->>'bytes')::int > 0`, file); n != 1 {
		t.Errorf("%d backup.create rows, want 1", n)
	}
	dst := pgtest.NewEmptyURL(t)
	if _, stderr, err := runCmd(t, map[string]string{"DATABASE_URL": dst}, "", "restore", file); err != nil {
		t.Fatalf("restore = %v %q", err, stderr)
	}
	if n := countOnce(t, dst, `SELECT count(*) FROM audit_log WHERE action = 'backup.restore' AND actor = 'system:cli'
		AND target_id = current_database() AND after->>'file' = $1 AND after->>'force' = 'false'`, file); n != 1 {
		t.Errorf("%d backup.restore rows, want 1", n)
	}
	// A database that takes no writes (a read-only role, a hot standby) is
	// backed up all the same, with a warning that the audit row is missing.
	ro := pgtest.NewURL(t)
	if _, err := pgtest.Connect(t, ro).Exec(context.Background(),
		`DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_read_only = on', current_database()); END $$`); err != nil {
		t.Fatal(err)
	}
	roFile := filepath.Join(t.TempDir(), "read-only.dump")
	stdout, stderr, err := runCmd(t, map[string]string{"DATABASE_URL": ro}, "", "backup", roFile)
	if err != nil || !strings.Contains(stdout, "Backed up the database to "+roFile) ||
		!strings.Contains(stderr, "warning: the backup is written, but its audit row could not be") {
		t.Errorf("backup of a read-only database = %v, stdout %q, stderr %q; want it written, with a warning", err, stdout, stderr)
	}
	if fi, err := os.Stat(roFile); err != nil || fi.Size() == 0 {
		t.Errorf("the read-only database's backup file: %v", err)
	}
	// A scheduled backup is audited as the backup job.
	dir := t.TempDir()
	if _, err := scheduledBackup(context.Background(), src, dir, 2, time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	if n := countOnce(t, src, `SELECT count(*) FROM audit_log WHERE action = 'backup.create' AND actor = 'system:backup'`); n != 1 {
		t.Errorf("%d scheduled backup.create rows, want 1", n)
	}
}

// TestRestoreCommandRefusesARunningServer: tenure restore refuses a
// database a running tenure serve is connected to, with --force too, naming
// the server and how to stop it; once the server stops, it restores.
func TestRestoreCommandRefusesARunningServer(t *testing.T) {
	src := pgtest.NewURL(t)
	file := filepath.Join(t.TempDir(), "tenure.dump")
	if _, stderr, err := runCmd(t, map[string]string{"DATABASE_URL": src}, "", "backup", file); err != nil {
		t.Fatalf("backup = %v %q", err, stderr)
	}
	dst := pgtest.NewURL(t)
	env := map[string]string{"DATABASE_URL": dst}
	_, _, stop := startServe(t, env)

	for _, args := range [][]string{{"restore", file}, {"restore", "--force", file}} {
		_, _, err := runCmd(t, env, "", args...)
		wantCmdError(t, err, 1, "restore", "the database is in use", `"tenure serve"`, "Stop the Tenure server(s)",
			"tenure serve processes", "nothing was restored")
		if err != nil && strings.Contains(err.Error(), "backup:") {
			t.Errorf("restore error %q speaks of backup", err)
		}
		if force := len(args) == 3; err != nil && force != strings.Contains(err.Error(), "--force does not override this") {
			t.Errorf("restore %v error %q: --force not named as no help exactly when given", args, err)
		}
	}
	if n := countOnce(t, dst, `SELECT count(*) FROM audit_log WHERE action = 'backup.restore'`); n != 0 {
		t.Errorf("a refused restore wrote %d audit rows", n)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if out, stderr, err := runCmd(t, env, "", "restore", "--force", file); err != nil || !strings.Contains(out, "Restored") {
		t.Fatalf("restore --force once the server stopped = %q %q %v", out, stderr, err)
	}
	if n := countOnce(t, dst, `SELECT count(*) FROM audit_log WHERE action = 'backup.restore' AND after->>'force' = 'true'`); n != 1 {
		t.Errorf("%d backup.restore rows after the forced restore, want 1", n)
	}
}
