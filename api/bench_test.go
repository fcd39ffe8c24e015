package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// BenchmarkPushBatch pushes batches of 1,000 working rows through the HTTP
// API, token check and all, and reports rows per second (the push target: at least
// 20,000).
func BenchmarkPushBatch(b *testing.B) {
	f := newAPIFixture(b)
	token := f.newToken(b, "bench", "loader", "writer")
	rows := make([]map[string]any, 1000)
	for i := range rows {
		rows[i] = map[string]any{
			"content":    fmt.Sprintf("Observation number %d about the project, of a typical length for an agent's note", i),
			"durability": []string{"durable", "transient"}[i%2],
			"importance": 0.5,
			"metadata":   map[string]any{"turn": i},
			"properties": map[string]any{"entity": "project", "key": fmt.Sprintf("note_%d", i%50)},
		}
	}
	body, err := json.Marshal(map[string]any{"nodes": rows})
	if err != nil {
		b.Fatal(err)
	}
	client := f.srv.Client()
	start := time.Now()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/api/v1/scopes/bench/nodes", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			b.Fatalf("status %d", res.StatusCode)
		}
	}
	b.ReportMetric(float64(b.N*len(rows))/time.Since(start).Seconds(), "rows/s")
}
