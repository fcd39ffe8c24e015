package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/bench"
	"github.com/tenurehq/tenure/internal/pgtest"
	"github.com/tenurehq/tenure/pglocal"
	"github.com/tenurehq/tenure/replica"
	"github.com/tenurehq/tenure/web"
)

// The benchmarks of reads on standbys run the whole server over the test
// cluster and standbys of it on this machine, with the router's default
// check interval and lag limit. Run them with, for instance,
//
//	go test ./server/ -run '^$' -bench Standby -benchtime 2000x
//
// The primary and its standbys share this machine's processors: the
// recall figures show what routing costs or gains here, not what standbys
// on machines of their own would add.

// benchWords are words of the seeded facts' vocabulary (bench.Seed).
var benchWords = strings.Fields("postgres deploy release budget meeting travel flight hotel invoice customer contract deadline review design")

// benchServer starts the server with standbys hot standbys, over a
// database seeded with facts (none when 0), with one writer token "bench"
// of the first seeded scope.
func benchServer(b *testing.B, standbys, facts int) *standbyFixture {
	b.Helper()
	setup := fixtureSetup{maxLag: replica.DefaultMaxLag, interval: replica.DefaultInterval, standbys: standbys,
		scope: bench.Scope(0), tokens: []string{"bench"}}
	if facts > 0 {
		setup.seed = func(ctx context.Context, pool *pgxpool.Pool) error {
			_, err := bench.Seed(ctx, pool, bench.SeedOptions{Facts: facts, Scopes: 10, Seed: 1})
			return err
		}
	}
	return startStandbyServer(b, setup)
}

// load runs fn once for each iteration of b.Loop, from clients goroutines
// with a client each, and waits for the last; a failure is reported once.
func load(b *testing.B, clients int, fn func(c *http.Client, i int) error) {
	b.Helper()
	jobs := make(chan int)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
			for i := range jobs {
				if err := fn(c, i); err != nil && failed.Add(1) == 1 {
					b.Error(err)
				}
			}
		}()
	}
	i := 0
	for b.Loop() {
		jobs <- i
		i++
	}
	close(jobs)
	wg.Wait()
	if n := failed.Load(); n > 0 {
		b.Errorf("%d of %d requests failed", n, i)
	}
}

// get sends a GET as the fixture's token "bench" and checks it is answered
// 200.
func (f *standbyFixture) get(c *http.Client, path string) error {
	req, err := http.NewRequest(http.MethodGet, f.url+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", f.tokens["bench"])
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s = %d %s", path, res.StatusCode, body)
	}
	return nil
}

// recallPath is the i-th recall of the benchmarks: one or two words of the
// seeded vocabulary.
func recallPath(i int) string {
	q := benchWords[i%len(benchWords)]
	if i%2 == 1 {
		q += " " + benchWords[(i*7)%len(benchWords)]
	}
	return "/api/v1/scopes/" + bench.Scope(0) + "/recall?q=" + url.QueryEscape(q)
}

// BenchmarkStandbyRecall is recall throughput over the API from 16
// clients, on 100,000 facts (10,000 in the scope asked), with the primary
// alone and with two standbys taking the reads.
func BenchmarkStandbyRecall(b *testing.B) {
	for _, standbys := range []int{0, 2} {
		b.Run(fmt.Sprintf("standbys=%d", standbys), func(b *testing.B) {
			f := benchServer(b, standbys, 100_000)
			load(b, 16, func(c *http.Client, i int) error { return f.get(c, recallPath(i)) })
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "recalls/s")
			if standbys > 0 {
				primary, standby := f.reads(b)
				b.ReportMetric(100*standby/(primary+standby), "%on-standbys")
			}
		})
	}
}

// consolePages are the console lists the console benchmark asks for in
// turn: the facts list by each durability, by a category, by text, and the
// decisions list, all across scopes, as a reviewer browses.
var consolePages = []string{
	"/facts?durability=permanent", "/facts?durability=long_term", "/facts?durability=short_term",
	"/facts?category=observation", "/facts?q=postgres", "/decisions", "/facts?scope=" + bench.Scope(0),
}

// BenchmarkStandbyConsole is console throughput from 16 clients signed in
// as one viewer, over the lists of consolePages, on 100,000 facts, with
// the primary alone and with two standbys taking the reads.
func BenchmarkStandbyConsole(b *testing.B) {
	for _, standbys := range []int{0, 2} {
		b.Run(fmt.Sprintf("standbys=%d", standbys), func(b *testing.B) {
			f := benchServer(b, standbys, 100_000)
			ctx := context.Background()
			if _, err := auth.SeedUser(ctx, f.primary, auth.NewUser{Email: "viewer@example.com", Role: "viewer",
				Password: "a long enough secret"}); err != nil {
				b.Fatal(err)
			}
			sessions, err := auth.NewSessions(f.primary, time.Now)
			if err != nil {
				b.Fatal(err)
			}
			cookie, _, err := sessions.Login(ctx, "viewer@example.com", "a long enough secret", "bench", "127.0.0.1")
			if err != nil {
				b.Fatal(err)
			}
			load(b, 16, func(c *http.Client, i int) error {
				path := consolePages[i%len(consolePages)]
				req, err := http.NewRequest(http.MethodGet, f.url+path, nil)
				if err != nil {
					return err
				}
				req.AddCookie(&http.Cookie{Name: web.SessionCookie, Value: cookie})
				res, err := c.Do(req)
				if err != nil {
					return err
				}
				defer res.Body.Close()
				body, _ := io.ReadAll(res.Body)
				if res.StatusCode != http.StatusOK {
					return fmt.Errorf("GET %s = %d %.200s", path, res.StatusCode, body)
				}
				return nil
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
			if standbys > 0 {
				primary, standby := f.reads(b)
				b.ReportMetric(100*standby/(primary+standby), "%on-standbys")
			}
		})
	}
}

// BenchmarkStandbyPushLag is how far two standbys fall behind while 8
// clients push batches of 20 working rows as fast as they can: the
// replay lag PostgreSQL measures (pg_stat_replication), and the lag the
// router sees, sampled every 50 ms.
func BenchmarkStandbyPushLag(b *testing.B) {
	f := benchServer(b, 2, 0)
	var rows []string
	for i := range 20 {
		rows = append(rows, fmt.Sprintf(`{"content": "Row %d of a batch about the %s of the %s."}`, i,
			benchWords[i%len(benchWords)], benchWords[(i*3)%len(benchWords)]))
	}
	batch := `{"rows": [` + strings.Join(rows, ",") + `]}`

	var maxReplay, sumReplay, maxRouter time.Duration
	var maxBytes int64
	var samples int
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		ctx := context.Background()
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			var replay time.Duration
			var behind int64
			err := f.primary.QueryRow(ctx, `SELECT coalesce(max(replay_lag), '0'), coalesce(max(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)), 0)::bigint
				FROM pg_stat_replication`).Scan(&replay, &behind)
			if err != nil {
				continue
			}
			samples++
			sumReplay += replay
			maxReplay, maxBytes = max(maxReplay, replay), max(maxBytes, behind)
			for _, s := range f.router.Status().Standbys {
				maxRouter = max(maxRouter, s.Lag)
			}
		}
	}()
	load(b, 8, func(c *http.Client, i int) error {
		req, err := http.NewRequest(http.MethodPost, f.url+"/api/v1/scopes/"+bench.Scope(0)+"/nodes", strings.NewReader(batch))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", f.tokens["bench"])
		req.Header.Set("Content-Type", "application/json")
		res, err := c.Do(req)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusCreated {
			return fmt.Errorf("push = %d %s", res.StatusCode, body)
		}
		return nil
	})
	elapsed := b.Elapsed()
	close(stop)
	<-sampled
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "pushes/s")
	b.ReportMetric(float64(maxReplay.Microseconds())/1000, "max-replay-lag-ms")
	if samples > 0 {
		b.ReportMetric(float64(sumReplay.Microseconds())/1000/float64(samples), "mean-replay-lag-ms")
	}
	b.ReportMetric(float64(maxRouter.Microseconds())/1000, "max-router-lag-ms")
	b.ReportMetric(float64(maxBytes)/1024, "max-KiB-behind")
	for i := range f.standbys {
		if st := f.router.Status().Standbys[i]; !st.Healthy {
			b.Errorf("standby %d unhealthy after the pushes: %s", i+1, st.LastError)
		}
	}
}

// BenchmarkStandbyFailover is how long reads take to leave a standby that
// is killed, with recalls flowing from 4 clients (a read that fails on it
// takes it out at once) and without traffic (its next check does), and how
// long it takes to rejoin once started again. One of two standbys is
// killed at each iteration; no recall may fail.
func BenchmarkStandbyFailover(b *testing.B) {
	for _, traffic := range []bool{true, false} {
		b.Run(fmt.Sprintf("traffic=%t", traffic), func(b *testing.B) {
			f := benchServer(b, 2, 0)
			var stop atomic.Bool
			var wg sync.WaitGroup
			var recalls, failures atomic.Int64
			if traffic {
				for range 4 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						c := &http.Client{}
						for i := 0; !stop.Load(); i++ {
							recalls.Add(1)
							if err := f.get(c, recallPath(i)); err != nil && failures.Add(1) == 1 {
								b.Error(err)
							}
						}
					}()
				}
			}
			quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
			var leave, rejoin time.Duration
			for b.Loop() {
				s := f.standbys[0]
				port := s.Port()
				start := time.Now()
				if err := s.Kill(); err != nil {
					b.Fatal(err)
				}
				for f.router.Status().Standbys[0].InRotation {
					time.Sleep(time.Millisecond)
				}
				leave += time.Since(start)
				s, err := pgtest.Cluster(b).StartStandby(context.Background(), pglocal.StandbyOptions{
					DataDir: s.DataDir(), Port: port, Ephemeral: true, Logger: quiet})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { s.Stop(context.Background()) })
				f.standbys[0] = s
				start = time.Now()
				for !f.router.Status().Standbys[0].InRotation {
					time.Sleep(time.Millisecond)
				}
				rejoin += time.Since(start)
			}
			stop.Store(true)
			wg.Wait()
			b.ReportMetric(float64(leave.Microseconds())/1000/float64(b.N), "ms-to-leave")
			b.ReportMetric(float64(rejoin.Microseconds())/1000/float64(b.N), "ms-to-rejoin")
			if traffic {
				b.ReportMetric(float64(recalls.Load()), "recalls")
				if n := failures.Load(); n > 0 {
					b.Errorf("%d of %d recalls failed", n, recalls.Load())
				}
			}
		})
	}
}
