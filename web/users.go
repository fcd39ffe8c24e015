package web

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
	"github.com/tenurehq/tenure/views/pages"
)

// admin is the administration of people and tokens, as the signed-in admin.
func (s *Console) userAdmin() *auth.Admin { return auth.NewAdmin(s.pool, s.now) }

// usersAdminStatus is the status of a refused administrative change.
func usersAdminStatus(e *memory.Error) int {
	switch e.Code {
	case memory.CodeConflict:
		return http.StatusConflict
	case memory.CodeNotFound:
		return http.StatusNotFound
	}
	return http.StatusUnprocessableEntity
}

// userList lists the people who may sign in, with a form for a new one.
func (s *Console) userList(c echo.Context) error {
	return s.renderUsers(c, http.StatusOK, pages.UsersForm{Role: string(auth.RoleViewer)}, 0, nil)
}

// renderUsers renders the users page with form as the new-user form and, for
// user refusedID, the reason a change was refused.
func (s *Console) renderUsers(c echo.Context, status int, form pages.UsersForm, refusedID int64, refusal *memory.Error) error {
	users, err := s.userAdmin().ListUsers(c.Request().Context())
	if err != nil {
		return err
	}
	sess := currentSession(c)
	view := pages.UsersPage{Now: s.now(), Form: form}
	for _, u := range users {
		row := pages.UsersRow{ID: u.ID, Email: u.Email, Name: u.Name, Role: string(u.Role), CreatedAt: u.CreatedAt,
			LastLoginAt: u.LastLoginAt, DisabledAt: u.DisabledAt, IsSelf: sess != nil && sess.UserID == u.ID}
		if refusal != nil && u.ID == refusedID {
			row.Error, row.ErrorField = refusal.Message, refusal.Field
			if row.ErrorField == "" {
				row.ErrorField = "user"
			}
		}
		view.Users = append(view.Users, row)
	}
	return s.page(c, status, "Users", "users", pages.Users(view), nil)
}

// usersFields names the fields of the new-user form, as its errors say them.
var usersFields = map[string]string{
	"email": "the email", "name": "the name", "role": "the role", "password": "the password", "confirm": "the repeated password",
}

// userCreate creates a person; the form comes back with the error beside the
// field when the input is refused (422), text the database cannot take
// included, before anything reaches it.
func (s *Console) userCreate(c echo.Context) error {
	in := auth.NewUser{
		Email: strings.TrimSpace(c.FormValue("email")), Name: strings.TrimSpace(c.FormValue("name")),
		Role: c.FormValue("role"), Password: c.FormValue("password"), Confirm: c.FormValue("confirm"),
	}
	if err := checkForm(c); err != nil {
		form := pages.UsersForm{Email: shownText(in.Email), Name: shownText(in.Name), Role: shownText(in.Role)}
		field, msg := refusedText(err, usersFields)
		if field == "" {
			return echo.NewHTTPError(http.StatusUnprocessableEntity, "The user was not created: "+msg+".")
		}
		form.Errors = map[string]string{field: msg}
		return s.renderUsers(c, http.StatusUnprocessableEntity, form, 0, nil)
	}
	u, err := s.userAdmin().CreateUser(c.Request().Context(), *currentSession(c), in)
	var ae *memory.Error
	if errors.As(err, &ae) {
		form := pages.UsersForm{Email: in.Email, Name: in.Name, Role: in.Role,
			Errors: map[string]string{ae.Field: ae.Message}}
		return s.renderUsers(c, usersAdminStatus(ae), form, 0, nil)
	}
	if err != nil {
		return err
	}
	return s.redirectWithFlash(c, "/users", "ok", "Created "+string(u.Role)+" "+u.Email+".")
}

// userSave changes one person's role, or disables or enables them.
func (s *Console) userSave(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := checkForm(c); err != nil {
		field, msg := refusedText(err, map[string]string{"role": "the role"})
		return s.renderUsers(c, http.StatusUnprocessableEntity, pages.UsersForm{Role: string(auth.RoleViewer)}, id,
			&memory.Error{Code: memory.CodeInvalid, Field: field, Message: "nothing was changed: " + msg})
	}
	ctx := c.Request().Context()
	by := *currentSession(c)
	var (
		u   auth.User
		msg string
	)
	switch action := c.FormValue("action"); action {
	case "role":
		u, err = s.userAdmin().SetRole(ctx, by, id, c.FormValue("role"))
		msg = u.Email + " is now " + string(u.Role) + "."
	case "disable":
		u, err = s.userAdmin().SetDisabled(ctx, by, id, true)
		msg = u.Email + " is disabled; their sessions have ended."
	case "enable":
		u, err = s.userAdmin().SetDisabled(ctx, by, id, false)
		msg = u.Email + " may sign in again."
	default:
		return echo.NewHTTPError(http.StatusBadRequest,
			"Unknown action "+usersQuote(action)+": allowed values are role, disable, enable.")
	}
	var ae *memory.Error
	if errors.As(err, &ae) {
		if ae.Code == memory.CodeNotFound {
			return echo.NewHTTPError(http.StatusNotFound, ae.Message)
		}
		return s.renderUsers(c, usersAdminStatus(ae), pages.UsersForm{Role: string(auth.RoleViewer)}, id, ae)
	}
	if err != nil {
		return err
	}
	return s.redirectWithFlash(c, "/users", "ok", msg)
}

// refusedText reads a refusal of checkForm: the field at fault and the
// message to show beside it, when fields (by name, with how messages name
// it) holds the field; otherwise no field and a message naming it.
func refusedText(err error, fields map[string]string) (field, msg string) {
	var me *memory.Error
	if !errors.As(err, &me) {
		return "", err.Error()
	}
	if label, ok := fields[me.Field]; ok {
		return me.Field, label + " " + me.Message
	}
	return "", me.Error()
}

// shownText is a value of a refused form as the form shows it again: bytes
// that are not UTF-8, and control characters other than tab, newline and
// carriage return, become U+FFFD, so that the page holds only text.
func shownText(s string) string {
	if memory.CheckText("", s) == nil {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

// usersQuote quotes a user-supplied value for an error message, cut
// short so that a long value cannot flood the page.
func usersQuote(s string) string {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return `"` + s + `"`
}
