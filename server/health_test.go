package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tenurehq/tenure/server"
)

// TestMetricsBearerInAnyCase: /metrics takes its token under the Bearer
// scheme written in any case (RFC 7235: schemes are case-insensitive), and
// nothing else.
func TestMetricsBearerInAnyCase(t *testing.T) {
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("tenure_up 1\n"))
	})
	h := server.MetricsHandler(metrics, "s3cret")
	for _, tt := range []struct {
		header string
		want   int
	}{
		{"Bearer s3cret", http.StatusOK},
		{"bearer s3cret", http.StatusOK},
		{"BEARER s3cret", http.StatusOK},
		{"bEaReR s3cret", http.StatusOK},
		{"Bearer   s3cret", http.StatusOK},
		{"  Bearer s3cret  ", http.StatusOK},
		{"", http.StatusUnauthorized},
		{"Bearer", http.StatusUnauthorized},
		{"Bearer ", http.StatusUnauthorized},
		{"bearer S3CRET", http.StatusUnauthorized},
		{"Bearer s3cre", http.StatusUnauthorized},
		{"Bearer s3cret2", http.StatusUnauthorized},
		{"Bearer s3cret extra", http.StatusUnauthorized},
		{"Bearers3cret", http.StatusUnauthorized},
		{"Basic s3cret", http.StatusUnauthorized},
		{"s3cret", http.StatusUnauthorized},
		{"Token s3cret", http.StatusUnauthorized},
	} {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if tt.header != "" {
			req.Header.Set("Authorization", tt.header)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.want {
			t.Errorf("Authorization %q = %d, want %d", tt.header, rec.Code, tt.want)
		}
		if rec.Code == http.StatusUnauthorized && rec.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("Authorization %q: 401 without WWW-Authenticate", tt.header)
		}
	}

	rec := httptest.NewRecorder()
	server.MetricsHandler(metrics, "").ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("without a token set, /metrics = %d, want 200", rec.Code)
	}
}
