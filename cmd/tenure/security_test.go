package main

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/internal/pgtest"
)

var metricsLine = regexp.MustCompile(`Metrics are served at (http://[0-9.:]+/metrics)`)

// getAuth is a GET with an Authorization header when auth is set.
func getAuth(t *testing.T, url, auth string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServeMetricsOnItsOwnAddress: with --metrics-addr, /metrics is served
// on that listener only (behind the token when one is set) and stops with
// serve.
func TestServeMetricsOnItsOwnAddress(t *testing.T) {
	const token = "metrics-token-0123456789"
	env := map[string]string{"DATABASE_URL": pgtest.NewURL(t), "TENURE_METRICS_TOKEN": token}
	url, out, stop := startServe(t, env, "--metrics-addr", "127.0.0.1:0")
	m := metricsLine.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("serve --metrics-addr printed no metrics address: %s", out)
	}
	metrics := m[1]
	if code, body := getAuth(t, url+"/metrics", "Bearer "+token); code != http.StatusNotFound || strings.Contains(body, "go_goroutines") {
		t.Errorf("GET /metrics on the main address = %d, want 404 when --metrics-addr is set", code)
	}
	if code, _ := getAuth(t, metrics, ""); code != http.StatusUnauthorized {
		t.Errorf("GET %s without the token = %d, want 401", metrics, code)
	}
	if code, body := getAuth(t, metrics, "Bearer "+token); code != http.StatusOK || !strings.Contains(body, "go_goroutines") {
		t.Errorf("GET %s with the token = %d, want Prometheus metrics", metrics, code)
	}
	if code, _ := getAuth(t, strings.TrimSuffix(metrics, "/metrics")+"/healthz", ""); code != http.StatusNotFound {
		t.Errorf("the metrics listener answers /healthz with %d, want 404: it serves /metrics alone", code)
	}
	if err := stop(); err != nil {
		t.Fatalf("serve returned %v", err)
	}
	if _, err := http.Get(metrics); err == nil {
		t.Error("the metrics listener still answers after shutdown")
	}
}

// TestServeMetricsTokenAndProxyFlags: with only --metrics-token, /metrics is
// on the main address behind the token; --public-url https makes cookies
// Secure; HEAD is answered on GET routes without a body.
func TestServeMetricsTokenAndProxyFlags(t *testing.T) {
	const token = "metrics-token-0123456789"
	env := map[string]string{"DATABASE_URL": pgtest.NewURL(t)}
	url, _, _ := startServe(t, env, "--metrics-token", token, "--public-url", "https://tenure.example.com",
		"--trusted-proxies", "127.0.0.1, 10.0.0.0/8")
	if code, _ := getAuth(t, url+"/metrics", ""); code != http.StatusUnauthorized {
		t.Errorf("GET /metrics without the token = %d, want 401", code)
	}
	if code, body := getAuth(t, url+"/metrics", "Bearer "+token); code != http.StatusOK || !strings.Contains(body, "go_goroutines") {
		t.Errorf("GET /metrics with the token = %d, want Prometheus metrics", code)
	}
	resp, err := http.Get(url + "/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(resp.Cookies()) == 0 || !resp.Cookies()[0].Secure {
		t.Errorf("GET /login cookies = %v, want Secure with an https public URL", resp.Cookies())
	}
	for _, path := range []string{"/healthz", "/login"} {
		resp, err := http.Head(url + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || len(b) != 0 || resp.Header.Get("Content-Type") == "" {
			t.Errorf("HEAD %s = %d, %d body bytes, Content-Type %q; want 200, no body, the GET's type",
				path, resp.StatusCode, len(b), resp.Header.Get("Content-Type"))
		}
	}
}
