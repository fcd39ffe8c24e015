package api_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/memory"
)

func TestWriteError(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		code   string
		field  string
		hidden string
	}{
		{"invalid", memory.Invalidf("durability", "bad"), http.StatusBadRequest, "invalid", "durability", ""},
		{"wrapped not found", fmt.Errorf("get: %w", memory.NotFoundf("no fact with id 3")), http.StatusNotFound, "not_found", "", ""},
		{"conflict", &memory.Error{Code: memory.CodeConflict, Message: "dup"}, http.StatusConflict, "conflict", "", ""},
		{"forbidden", &memory.Error{Code: memory.CodeForbidden, Message: "no"}, http.StatusForbidden, "forbidden", "", ""},
		{"locked", fmt.Errorf("create fact: %w", &memory.Error{Code: memory.CodeDecisionLocked, Message: "locked",
			Locked: &memory.LockedDecision{ID: 7, Decision: "Use PostgreSQL", Reasoning: "known"}}),
			http.StatusConflict, "decision_locked", "", ""},
		{"stale", &memory.Error{Code: memory.CodeConflict, Message: "stale", CurrentFact: &memory.Fact{ID: 4, Version: 9}},
			http.StatusConflict, "conflict", "version", ""},
		{"run in progress", memory.ErrRunInProgress, http.StatusConflict, "conflict", "", ""},
		{"http", echo.NewHTTPError(http.StatusRequestEntityTooLarge, "too big"), http.StatusRequestEntityTooLarge, "payload_too_large", "", ""},
		{"unauthorized", echo.NewHTTPError(http.StatusUnauthorized, "who are you"), http.StatusUnauthorized, "unauthorized", "", ""},
		{"internal", errors.New("pq: password authentication failed for user secret_admin"), http.StatusInternalServerError, "internal", "", "secret_admin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := echo.New()
			rec := httptest.NewRecorder()
			c := e.NewContext(httptest.NewRequest(http.MethodGet, "/api/v1/x", nil), rec)
			if err := api.WriteError(c, tt.err); err != nil {
				t.Fatal(err)
			}
			r := apiResponse{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
			got := r.wantError(t, tt.status, tt.code)
			if got.Error.Field != tt.field {
				t.Errorf("field = %q, want %q", got.Error.Field, tt.field)
			}
			if tt.hidden != "" && strings.Contains(string(r.body), tt.hidden) {
				t.Errorf("body %s leaks %q", r.body, tt.hidden)
			}
			if tt.code == "decision_locked" && (got.Error.DecisionID == nil || *got.Error.DecisionID != 7 || got.Error.Reasoning != "known") {
				t.Errorf("locked error = %+v, want decision 7 and its reasoning", got.Error)
			}
			if tt.name == "stale" && !strings.Contains(string(got.Error.Current), `"version":9`) {
				t.Errorf("stale error current = %s, want the current fact", got.Error.Current)
			}
			if tt.status == http.StatusUnauthorized && !strings.HasPrefix(rec.Header().Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without a Bearer challenge")
			}
		})
	}
}
