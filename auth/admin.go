package auth

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenurehq/tenure/internal/textcheck"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/queries"
)

// DB is what administration needs of the database: queries and transactions.
// A *pgxpool.Pool is one.
type DB interface {
	queries.DBTX
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Admin administers people and API tokens. Every change runs in one
// transaction together with its audit row.
type Admin struct {
	db  DB
	q   *queries.Queries
	now func() time.Time
}

// NewAdmin returns the administration over db; now is the clock (nil for
// time.Now).
func NewAdmin(db DB, now func() time.Time) *Admin {
	if now == nil {
		now = time.Now
	}
	return &Admin{db: db, q: queries.New(db), now: now}
}

func (a *Admin) clock() time.Time { return a.now().UTC().Truncate(time.Microsecond) }

// adminErr is a refused administrative change: a memory.Error with code
// (invalid, conflict: a duplicate or a change the current state forbids,
// not_found), the form field at fault, if any, and a message for the admin.
func adminErr(code memory.Code, field, format string, args ...any) *memory.Error {
	return &memory.Error{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
}

// User is a person who may sign in to the console.
type User struct {
	ID          int64
	Email       string
	Name        string
	Role        Role
	CreatedAt   time.Time
	UpdatedAt   time.Time
	LastLoginAt *time.Time
	DisabledAt  *time.Time
}

func userFromRow(u queries.User) User {
	return User{ID: u.ID, Email: u.Email, Name: u.Name, Role: Role(u.Role), CreatedAt: u.CreatedAt,
		UpdatedAt: u.UpdatedAt, LastLoginAt: u.LastLoginAt, DisabledAt: u.DisabledAt}
}

// ListUsers returns every user, by email.
func (a *Admin) ListUsers(ctx context.Context) ([]User, error) {
	rows, err := a.q.ListUsers(ctx)
	if err != nil {
		return nil, fmt.Errorf("auth: list users: %w", err)
	}
	out := make([]User, len(rows))
	for i, r := range rows {
		out[i] = userFromRow(r)
	}
	return out, nil
}

// NewUser is a person to create.
type NewUser struct {
	Email    string
	Name     string
	Role     string
	Password string
	// Confirm must repeat Password, as the form asks it twice.
	Confirm string
}

// Bounds of a user's fields.
const (
	maxEmail    = 254
	maxName     = 200
	maxPassword = 1024
)

var emailPattern = regexp.MustCompile(`^[^@\s]+@[^@\s]+$`)

// checkText refuses text the database cannot store or that has no place in
// an account (textcheck.Text: bytes that are not UTF-8, a NUL or another
// control character than tab, newline and carriage return), as an
// invalid error (memory.CodeInvalid) about field, which what names. The console and the
// command line check their input first; this is the last line before SQL.
// The message never repeats the text, which may be a password.
func checkText(field, what, s string) error {
	err := textcheck.Text(s)
	var te *textcheck.Error
	if errors.As(err, &te) {
		return adminErr(memory.CodeInvalid, field, "%s %s", what, te.Reason)
	}
	return err
}

// ParseEmail validates an email address as users.email accepts it.
func ParseEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	if err := checkText("email", "the email", s); err != nil {
		return "", err
	}
	switch {
	case s == "":
		return "", adminErr(memory.CodeInvalid, "email", "the email is empty: people sign in with it")
	case len(s) > maxEmail:
		return "", adminErr(memory.CodeInvalid, "email", "the email is %d characters long: at most %d are allowed", len(s), maxEmail)
	case !emailPattern.MatchString(s):
		return "", adminErr(memory.CodeInvalid, "email", "%q is not an email address: it needs one @ and no spaces", s)
	}
	return s, nil
}

func (in NewUser) validate() (NewUser, error) {
	email, err := ParseEmail(in.Email)
	if err != nil {
		return in, err
	}
	in.Email = email
	in.Name = strings.TrimSpace(in.Name)
	for _, f := range []struct{ field, what, value string }{
		{"name", "the name", in.Name}, {"role", "the role", in.Role},
		{"password", "the password", in.Password}, {"confirm", "the repeated password", in.Confirm},
	} {
		if err := checkText(f.field, f.what, f.value); err != nil {
			return in, err
		}
	}
	if n := utf8.RuneCountInString(in.Name); n > maxName {
		return in, adminErr(memory.CodeInvalid, "name", "the name is %d characters long: at most %d are allowed", n, maxName)
	}
	if _, err := ParseRole(in.Role); err != nil {
		return in, adminErr(memory.CodeInvalid, "role", "%s", strings.TrimPrefix(err.Error(), "auth: "))
	}
	return in, checkNewPassword(in.Password, in.Confirm)
}

// checkNewPassword applies the rules of a person's password, the same for
// a new user, a changed password and a reset one: text the database can
// take, at least MinPasswordLength characters, at most maxPassword bytes,
// and confirm repeating it. Errors are invalid (memory.CodeInvalid) on field
// password or confirm, and never repeat the password.
func checkNewPassword(password, confirm string) error {
	for _, f := range []struct{ field, what, value string }{
		{"password", "the password", password}, {"confirm", "the repeated password", confirm},
	} {
		if err := checkText(f.field, f.what, f.value); err != nil {
			return err
		}
	}
	if n := utf8.RuneCountInString(password); n < MinPasswordLength {
		return adminErr(memory.CodeInvalid, "password", "the password is %d characters long: use at least %d", n, MinPasswordLength)
	}
	if len(password) > maxPassword {
		return adminErr(memory.CodeInvalid, "password", "the password is too long: at most %d bytes", maxPassword)
	}
	if confirm != password {
		return adminErr(memory.CodeInvalid, "confirm", "the two passwords differ: type the same password twice")
	}
	return nil
}

// CreateUser creates a person, with their password hashed, and audits it as
// done by by, in one transaction. A duplicate email is a conflict (memory.CodeConflict) on
// field email.
func (a *Admin) CreateUser(ctx context.Context, by Session, in NewUser) (User, error) {
	in, err := in.validate()
	if err != nil {
		return User{}, err
	}
	hash, err := HashPassword(in.Password)
	if err != nil {
		return User{}, err
	}
	var u User
	err = pgx.BeginFunc(ctx, a.db, func(tx pgx.Tx) error {
		q := a.q.WithTx(tx)
		if u, err = insertUser(ctx, q, in, hash); err != nil {
			return err
		}
		return a.audit(ctx, q, by, "user.create", "user", u.ID, nil, nil,
			map[string]any{"email": u.Email, "name": u.Name, "role": u.Role}, "")
	})
	if err != nil {
		return User{}, wrapAdmin("create user", err)
	}
	return u, nil
}

// insertUser stores the validated in with its password hash. A duplicate
// email is a conflict (memory.CodeConflict) on field email.
func insertUser(ctx context.Context, q *queries.Queries, in NewUser, hash string) (User, error) {
	row, err := q.CreateUser(ctx, queries.CreateUserParams{Email: in.Email, Name: in.Name, Role: in.Role, PasswordHash: hash})
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" {
			return User{}, adminErr(memory.CodeConflict, "email", "a user with email %s already exists", in.Email)
		}
		return User{}, err
	}
	return userFromRow(row), nil
}

// lockUser locks the enabled admins, then the user with id, so that the
// last-admin check and the change see the same state.
func lockUser(ctx context.Context, q *queries.Queries, id int64) (queries.User, []int64, error) {
	admins, err := q.LockActiveAdmins(ctx)
	if err != nil {
		return queries.User{}, nil, err
	}
	u, err := q.GetUserForUpdate(ctx, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return queries.User{}, nil, adminErr(memory.CodeNotFound, "", "no user with id %d", id)
	}
	return u, admins, err
}

func isEnabledAdmin(u queries.User) bool { return u.Role == string(RoleAdmin) && u.DisabledAt == nil }

// SetRole gives the user with id role, audited as done by by. An admin may
// not change their own role, and the last enabled admin keeps theirs
// (a conflict, memory.CodeConflict). Setting the role a user has changes nothing.
func (a *Admin) SetRole(ctx context.Context, by Session, id int64, role string) (User, error) {
	if _, err := ParseRole(role); err != nil {
		return User{}, adminErr(memory.CodeInvalid, "role", "%s", strings.TrimPrefix(err.Error(), "auth: "))
	}
	var out User
	err := pgx.BeginFunc(ctx, a.db, func(tx pgx.Tx) error {
		q := a.q.WithTx(tx)
		cur, admins, err := lockUser(ctx, q, id)
		if err != nil {
			return err
		}
		if cur.Role == role {
			out = userFromRow(cur)
			return nil
		}
		if id == by.UserID {
			return adminErr(memory.CodeConflict, "role", "you cannot change your own role: ask another admin to do it")
		}
		if isEnabledAdmin(cur) && len(admins) <= 1 {
			return adminErr(memory.CodeConflict, "role", "%s is the last admin: make someone else admin first", cur.Email)
		}
		row, err := q.UpdateUserRole(ctx, queries.UpdateUserRoleParams{Role: role, At: a.clock(), ID: id})
		if err != nil {
			return err
		}
		out = userFromRow(row)
		return a.audit(ctx, q, by, "user.role", "user", id, nil,
			map[string]any{"email": cur.Email, "role": cur.Role}, map[string]any{"email": row.Email, "role": row.Role}, "")
	})
	if err != nil {
		return User{}, wrapAdmin("set role", err)
	}
	return out, nil
}

// SetDisabled disables (or enables again) the user with id, audited as done
// by by. Disabling ends the user's sessions at once. An admin may not disable
// themselves, nor the last enabled admin (a conflict, memory.CodeConflict). Asking for the
// state a user is in changes nothing.
func (a *Admin) SetDisabled(ctx context.Context, by Session, id int64, disabled bool) (User, error) {
	var out User
	err := pgx.BeginFunc(ctx, a.db, func(tx pgx.Tx) error {
		q := a.q.WithTx(tx)
		cur, admins, err := lockUser(ctx, q, id)
		if err != nil {
			return err
		}
		if (cur.DisabledAt != nil) == disabled {
			out = userFromRow(cur)
			return nil
		}
		now := a.clock()
		var at *time.Time
		action := "user.enable"
		if disabled {
			if id == by.UserID {
				return adminErr(memory.CodeConflict, "disabled", "you cannot disable your own account: ask another admin to do it")
			}
			if isEnabledAdmin(cur) && len(admins) <= 1 {
				return adminErr(memory.CodeConflict, "disabled", "%s is the last admin: make someone else admin first", cur.Email)
			}
			at, action = &now, "user.disable"
		}
		row, err := q.SetUserDisabled(ctx, queries.SetUserDisabledParams{DisabledAt: at, At: now, ID: id})
		if err != nil {
			return err
		}
		if disabled {
			if err := q.DeleteUserSessions(ctx, id); err != nil {
				return err
			}
			// A reset link issued before must not work again once the
			// account is enabled.
			if err := q.DeleteUnusedPasswordResets(ctx, id); err != nil {
				return err
			}
		}
		out = userFromRow(row)
		return a.audit(ctx, q, by, action, "user", id, nil,
			map[string]any{"email": cur.Email, "disabled_at": cur.DisabledAt},
			map[string]any{"email": row.Email, "disabled_at": row.DisabledAt}, "")
	})
	if err != nil {
		return User{}, wrapAdmin("set disabled", err)
	}
	return out, nil
}

// The roles of an API token.
const (
	TokenWriter = "writer" // pushes working rows, records decisions, recalls
	TokenReader = "reader" // recalls only
)

// Token is an API token as lists show it: never the token, only its prefix.
type Token struct {
	ID         int64
	Name       string
	Scope      string
	Role       string
	Prefix     string
	CreatedBy  string // the creator's email; empty when unknown
	CreatedAt  time.Time
	LastUsedAt *time.Time
	ExpiresAt  *time.Time
	RevokedAt  *time.Time
}

// ListTokens returns every token, live ones first, by scope and name.
func (a *Admin) ListTokens(ctx context.Context) ([]Token, error) {
	rows, err := a.q.ListTokensWithCreator(ctx)
	if err != nil {
		return nil, fmt.Errorf("auth: list tokens: %w", err)
	}
	out := make([]Token, len(rows))
	for i, r := range rows {
		out[i] = Token{ID: r.ID, Name: r.Name, Scope: r.Scope, Role: r.Role, Prefix: r.TokenPrefix,
			CreatedBy: r.CreatedByEmail, CreatedAt: r.CreatedAt, LastUsedAt: r.LastUsedAt,
			ExpiresAt: r.ExpiresAt, RevokedAt: r.RevokedAt}
	}
	return out, nil
}

// NewToken is an API token to create.
type NewToken struct {
	Name  string
	Scope string
	Role  string // writer or reader
	// ExpiresInDays is the token's lifetime; 0 means it never expires.
	ExpiresInDays int
}

// Bounds of a token's fields.
const (
	maxTokenName       = 100
	MaxTokenExpiryDays = 3650
)

// tokenScopePattern is the scope format of memory (api_tokens_scope_format).
var tokenScopePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_.:-]{0,62}$`)

func (in NewToken) validate() (NewToken, error) {
	in.Name = strings.TrimSpace(in.Name)
	in.Scope = strings.TrimSpace(in.Scope)
	for _, f := range []struct{ field, what, value string }{
		{"name", "the name", in.Name}, {"scope", "the scope", in.Scope}, {"role", "the role", in.Role},
	} {
		if err := checkText(f.field, f.what, f.value); err != nil {
			return in, err
		}
	}
	switch n := utf8.RuneCountInString(in.Name); {
	case n == 0:
		return in, adminErr(memory.CodeInvalid, "name", "the name is empty: name the agent or machine that will use the token")
	case n > maxTokenName:
		return in, adminErr(memory.CodeInvalid, "name", "the name is %d characters long: at most %d are allowed", n, maxTokenName)
	}
	if !tokenScopePattern.MatchString(in.Scope) {
		return in, adminErr(memory.CodeInvalid, "scope", "invalid scope %q: use 1 to 63 lowercase letters, digits, '_', '.', ':' or '-', starting with a letter or digit", in.Scope)
	}
	if in.Role != TokenWriter && in.Role != TokenReader {
		return in, adminErr(memory.CodeInvalid, "role", "invalid token role %q: allowed values are writer, reader", in.Role)
	}
	if in.ExpiresInDays < 0 || in.ExpiresInDays > MaxTokenExpiryDays {
		return in, adminErr(memory.CodeInvalid, "expires_days", "expiry of %d days is out of range: give 1 to %d days, or leave it empty for a token that never expires", in.ExpiresInDays, MaxTokenExpiryDays)
	}
	return in, nil
}

// CreateToken creates an API token, audited as done by by, and returns the
// token itself, which is shown once and stored only as its SHA-256. A live
// token with the same name in the scope is a conflict (memory.CodeConflict) on field name.
func (a *Admin) CreateToken(ctx context.Context, by Session, in NewToken) (string, Token, error) {
	in, err := in.validate()
	if err != nil {
		return "", Token{}, err
	}
	var createdBy *int64
	if by.UserID > 0 {
		createdBy = &by.UserID
	}
	var secret string
	var t Token
	err = pgx.BeginFunc(ctx, a.db, func(tx pgx.Tx) error {
		q := a.q.WithTx(tx)
		if secret, t, err = insertToken(ctx, q, in, createdBy, a.clock()); err != nil {
			return err
		}
		t.CreatedBy = by.Email
		return a.audit(ctx, q, by, "token.create", "token", t.ID, &t.Scope, nil,
			map[string]any{"name": t.Name, "scope": t.Scope, "role": t.Role, "prefix": t.Prefix, "expires_at": t.ExpiresAt}, "")
	})
	if err != nil {
		return "", Token{}, wrapAdmin("create token", err)
	}
	return secret, t, nil
}

// insertToken stores a fresh token for the validated in, created at now by
// createdBy (nil when unknown), and returns the token itself and the stored
// one. A live token with the same name in the scope is a conflict (memory.CodeConflict) on
// field name.
func insertToken(ctx context.Context, q *queries.Queries, in NewToken, createdBy *int64, now time.Time) (string, Token, error) {
	secret, hash, prefix, err := NewAPIToken()
	if err != nil {
		return "", Token{}, err
	}
	var expires *time.Time
	if in.ExpiresInDays > 0 {
		e := now.Add(time.Duration(in.ExpiresInDays) * 24 * time.Hour)
		expires = &e
	}
	row, err := q.CreateToken(ctx, queries.CreateTokenParams{
		Name: in.Name, Scope: in.Scope, Role: in.Role, TokenHash: hash, TokenPrefix: prefix,
		CreatedBy: createdBy, Now: now, ExpiresAt: expires,
	})
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "api_tokens_live_name_key" {
			return "", Token{}, adminErr(memory.CodeConflict, "name", "a live token named %q already exists in scope %s: revoke it first or pick another name", in.Name, in.Scope)
		}
		return "", Token{}, err
	}
	return secret, Token{ID: row.ID, Name: row.Name, Scope: row.Scope, Role: row.Role, Prefix: row.TokenPrefix,
		CreatedAt: row.CreatedAt, ExpiresAt: row.ExpiresAt}, nil
}

// RevokeToken revokes the token with id at once, audited as done by by. A
// token already revoked is a conflict (memory.CodeConflict).
func (a *Admin) RevokeToken(ctx context.Context, by Session, id int64) (Token, error) {
	var t Token
	err := pgx.BeginFunc(ctx, a.db, func(tx pgx.Tx) error {
		q := a.q.WithTx(tx)
		cur, err := q.GetTokenByIDForUpdate(ctx, id)
		if errors.Is(err, pgx.ErrNoRows) {
			return adminErr(memory.CodeNotFound, "", "no API token with id %d", id)
		}
		if err != nil {
			return err
		}
		if cur.RevokedAt != nil {
			return adminErr(memory.CodeConflict, "", "the token %q (%s…) was already revoked on %s",
				cur.Name, cur.TokenPrefix, cur.RevokedAt.UTC().Format("2006-01-02 15:04 UTC"))
		}
		now := a.clock()
		row, err := q.RevokeToken(ctx, queries.RevokeTokenParams{Now: &now, ID: id})
		if err != nil {
			return err
		}
		t = Token{ID: row.ID, Name: row.Name, Scope: row.Scope, Role: row.Role, Prefix: row.TokenPrefix,
			CreatedAt: row.CreatedAt, LastUsedAt: row.LastUsedAt, ExpiresAt: row.ExpiresAt, RevokedAt: row.RevokedAt}
		return a.audit(ctx, q, by, "token.revoke", "token", id, &t.Scope,
			map[string]any{"name": cur.Name, "revoked_at": nil}, map[string]any{"name": row.Name, "revoked_at": row.RevokedAt}, "")
	})
	if err != nil {
		return Token{}, wrapAdmin("revoke token", err)
	}
	return t, nil
}

// audit writes one audit row for an administrative change with q, through
// the one writer of the audit log.
func (a *Admin) audit(ctx context.Context, q *queries.Queries, by Session, action, targetType string, id int64,
	scope *string, before, after map[string]any, reason string) error {
	e := memory.AuditEntry{At: a.clock(), Actor: adminActor(by), Action: action, TargetType: targetType,
		TargetID: strconv.FormatInt(id, 10), Reason: reason}
	if scope != nil {
		e.Scope = *scope
	}
	// A nil map stays nil: the row then has no before (a creation) or no
	// after (a deletion).
	if before != nil {
		e.Before = before
	}
	if after != nil {
		e.After = after
	}
	return memory.WriteAudit(ctx, q, e)
}

// CLI is the Session of an administrative change made with the tenure
// command on the server itself; its audit rows name the actor system:cli.
var CLI = Session{}

// adminActor is how the audit log names the author of an administrative
// change: the signed-in person, or the command line.
func adminActor(by Session) memory.Actor {
	if by.Email == "" {
		return memory.System("cli")
	}
	return memory.Human(by.Email)
}

// wrapAdmin keeps a refusal (a memory.Error) as it is, for the console to
// show, and wraps anything else with what was being done.
func wrapAdmin(what string, err error) error {
	if me := memory.AsError(err); me != nil {
		return me
	}
	return fmt.Errorf("auth: %s: %w", what, err)
}
