package metrics

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tenurehq/tenure/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestRegistryExposesCounters(t *testing.T) {
	r := New()
	r.Rejected(10, "transient")
	r.Rejected(10, "transient")
	r.Rejected(12, "decision_locked")
	r.Archived(3)
	r.Promoted(5)
	r.ObserveRun("decay", 20*time.Millisecond, nil)
	r.ObserveRequest("/api/v1/scopes/:scope/facts/:id", "GET", 404, 3*time.Millisecond)
	rec := httptest.NewRecorder()
	r.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`tenure_consolidation_rejections_total{phase="10",reason="transient"} 2`,
		`tenure_consolidation_rejections_total{phase="12",reason="decision_locked"} 1`,
		`tenure_facts_archived_total 3`,
		`tenure_nodes_promoted_total 5`,
		`tenure_job_duration_seconds_count{job="decay"} 1`,
		`tenure_http_requests_total{code="404",method="GET",route="/api/v1/scopes/:scope/facts/:id"} 1`,
		`tenure_http_request_duration_seconds_count{code="404",method="GET",route="/api/v1/scopes/:scope/facts/:id"} 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
