package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/tenurehq/tenure/api"
	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/memory"
)

// pending measures read your own writes over the API. While one agent
// pushes batches of 1,000 rows into a scope of its own, another pushes one
// durable row at a time into a seeded scope and recalls it at once with a
// question of two of its words and its own reference: the time from the
// push's answer to the recall that finds the row pending is what an agent
// waits (the first recall should find it). Then batches are pushed with
// memory_nodes_pending_search_idx and without it, in turns, since the index
// costs the push.
func pending(ctx context.Context, pool *pgxpool.Pool, store *memory.Store, now time.Time, o Options) ([]Result, error) {
	fmt.Fprintln(o.Progress, "read your own writes: single rows recalled under batch pushes, then the push with and without the index")
	scope, loadScope := Scope(0), "bench-pending-load"
	tokens := map[string]string{}
	for _, sc := range []string{scope, loadScope} {
		t, _, err := auth.SeedToken(ctx, pool, auth.NewToken{Name: "bench-pending", Scope: sc, Role: auth.TokenWriter}, now)
		if err != nil {
			return nil, fmt.Errorf("bench token: %w", err)
		}
		tokens[sc] = t
	}
	e := echo.New()
	if err := api.Mount(e, api.Config{Store: store, Pool: pool, Logger: o.Logger, Now: func() time.Time { return now }}); err != nil {
		return nil, err
	}
	ts := httptest.NewServer(e)
	defer ts.Close()
	client := ts.Client()
	call := func(method, path string, body []byte, want int, out any) error {
		req, _ := http.NewRequestWithContext(ctx, method, ts.URL+path, bytes.NewReader(body))
		// /api/v1/scopes/{scope}/...: the token of the path's scope.
		req.Header.Set("Authorization", "Bearer "+tokens[strings.Split(path, "/")[4]])
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		msg, _ := io.ReadAll(res.Body)
		if res.StatusCode != want {
			return fmt.Errorf("%s %s = %d: %s", method, path, res.StatusCode, msg)
		}
		if out != nil {
			return json.Unmarshal(msg, out)
		}
		return nil
	}
	r := rand.New(rand.NewPCG(uint64(o.Seed.Seed), 4))
	batch := func() []byte {
		rows := make([]map[string]any, 1000)
		for i := range rows {
			rows[i] = map[string]any{"content": sentence(r, 8+r.IntN(8)), "durability": []string{"durable", "transient"}[i%2],
				"properties": map[string]any{"entity": "project", "key": fmt.Sprintf("note_%d", i%50)}}
		}
		body, _ := json.Marshal(map[string]any{"rows": rows})
		return body
	}
	batches := make([][]byte, max(o.PushBatches, 4))
	for i := range batches {
		batches[i] = batch()
	}
	nodes, loadNodes := "/api/v1/scopes/"+scope+"/nodes", "/api/v1/scopes/"+loadScope+"/nodes"

	// One agent's rows, each pushed and recalled at once: the time from the
	// push's answer to the recall that finds it, and how many the first
	// recall found.
	word := func() string { return words[r.IntN(len(words))] }
	probed := 0
	probe := func(n int) (waits []time.Duration, first int, err error) {
		for range n {
			// What an agent asks about what it just said: a few of its words
			// and the row's own reference, among stop words.
			said := []string{word(), word(), word(), word(), word(), word()}
			probed++
			ref := fmt.Sprintf("ryw%d", probed)
			body, _ := json.Marshal(map[string]any{"content": "The user mentioned " + strings.Join(said, " ") + " (ref " + ref + ")",
				"properties": map[string]any{"entity": "project"}})
			var pushed struct {
				IDs []int64 `json:"ids"`
			}
			if err := call(http.MethodPost, nodes, body, http.StatusCreated, &pushed); err != nil {
				return nil, 0, err
			}
			returned := time.Now()
			q := url.Values{"query": {fmt.Sprintf("What did the user say about %s and %s, ref %s?", said[1], said[4], ref)}}
			for attempt := 0; ; attempt++ {
				var out struct {
					Results []struct {
						Pending bool   `json:"pending"`
						NodeID  *int64 `json:"node_id"`
					} `json:"results"`
				}
				if err := call(http.MethodGet, "/api/v1/scopes/"+scope+"/recall?"+q.Encode(), nil, http.StatusOK, &out); err != nil {
					return nil, 0, err
				}
				found := false
				for _, res := range out.Results {
					found = found || (res.Pending && res.NodeID != nil && *res.NodeID == pushed.IDs[0])
				}
				if found {
					waits = append(waits, time.Since(returned))
					if attempt == 0 {
						first++
					}
					break
				}
				if time.Since(returned) > 10*time.Second {
					return nil, 0, fmt.Errorf("row %d pushed with %q was not recalled within 10 s", pushed.IDs[0], ref)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		return waits, first, nil
	}
	probes := min(o.Requests, 300)
	quiet, quietFirst, err := probe(probes / 3)
	if err != nil {
		return nil, err
	}

	// The same while batches are pushed without pause.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var loadRows int
	var loadTook time.Duration
	var loadErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		for i := 0; ; i++ {
			select {
			case <-stop:
				loadTook = time.Since(start)
				return
			default:
			}
			if loadErr = call(http.MethodPost, loadNodes, batches[i%len(batches)], http.StatusCreated, nil); loadErr != nil {
				return
			}
			loadRows += 1000
		}
	}()
	waits, foundFirst, err := probe(probes)
	close(stop)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if loadErr != nil {
		return nil, loadErr
	}

	// The push with the index and without it, in turns, each turn half the
	// batches, twice each.
	var with, without time.Duration
	var withRows, withoutRows int
	var indexDef string
	if err := pool.QueryRow(ctx, `SELECT pg_get_indexdef('memory_nodes_pending_search_idx'::regclass)`).Scan(&indexDef); err != nil {
		return nil, err
	}
	for turn := range 4 {
		indexed := turn%2 == 0
		if !indexed {
			if _, err := pool.Exec(ctx, `DROP INDEX memory_nodes_pending_search_idx`); err != nil {
				return nil, err
			}
		}
		start := time.Now()
		for _, b := range batches[:len(batches)/2] {
			if err := call(http.MethodPost, loadNodes, b, http.StatusCreated, nil); err != nil {
				return nil, err
			}
		}
		took, n := time.Since(start), 1000*(len(batches)/2)
		if indexed {
			with, withRows = with+took, withRows+n
		} else {
			without, withoutRows = without+took, withoutRows+n
			if _, err := pool.Exec(ctx, indexDef); err != nil {
				return nil, err
			}
		}
	}
	var pendingRows int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM memory_nodes WHERE scope = $1 AND promoted_at IS NULL AND marker = 'durable'`,
		scope).Scan(&pendingRows); err != nil {
		return nil, err
	}
	withRate, withoutRate := float64(withRows)/with.Seconds(), float64(withoutRows)/without.Seconds()
	return []Result{
		{Workload: fmt.Sprintf("push to recallable p50, no other pushes (%d rows; %d found by the first recall)", len(quiet), quietFirst),
			Unit: "ms", Tenure: ms(percentile(quiet, 0.5))},
		{Workload: fmt.Sprintf("push to recallable p95, no other pushes (%d rows; %d found by the first recall)", len(quiet), quietFirst),
			Unit: "ms", Tenure: ms(percentile(quiet, 0.95)), Target: "the first recall finds the row", Met: met(quietFirst == len(quiet))},
		{Workload: fmt.Sprintf("push to recallable p50 under batch pushes (%d rows; %d found by the first recall)", len(waits), foundFirst),
			Unit: "ms", Tenure: ms(percentile(waits, 0.5))},
		{Workload: fmt.Sprintf("push to recallable p95 under batch pushes (%d rows; %d found by the first recall; %d pending rows in the scope at the end)",
			len(waits), foundFirst, pendingRows), Unit: "ms", Tenure: ms(percentile(waits, 0.95)),
			Target: "the first recall finds the row", Met: met(foundFirst == len(waits))},
		{Workload: "batch push while rows are recalled", Unit: "rows/s", Tenure: float64(loadRows) / loadTook.Seconds()},
		{Workload: fmt.Sprintf("batch push with memory_nodes_pending_search_idx, %d × 1,000 rows in two turns", withRows/1000), Unit: "rows/s",
			Tenure: withRate, Baseline: withoutRate, BaseName: "the same pushes without the index, in turns between", Ratio: withRate / withoutRate},
	}, nil
}
