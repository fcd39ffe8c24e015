package main

import (
	"context"
	"sync"
	"testing"

	"github.com/tenurehq/tenure/internal/pgtest"
)

// TestWatchIndexBuilds builds an index whose every entry takes a
// millisecond (2,000 rows: about two seconds) and checks that the watcher
// reports the build's phase and its blocks or rows against their total.
func TestWatchIndexBuilds(t *testing.T) {
	url := pgtest.NewEmptyURL(t)
	pool := pgtest.Connect(t, url)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `CREATE TABLE slow_rows AS SELECT g AS n FROM generate_series(1, 2000) g;
CREATE FUNCTION slow_key(n integer) RETURNS integer LANGUAGE plpgsql IMMUTABLE AS
$$ BEGIN PERFORM pg_sleep(0.001); RETURN n; END $$`); err != nil {
		t.Fatal(err)
	}
	type report struct {
		phase, unit string
		done, total int64
	}
	var mu sync.Mutex
	var got []report
	stop := watchIndexBuilds(ctx, pool, func(phase, unit string, done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, report{phase, unit, done, total})
	})
	_, err := pool.Exec(ctx, `CREATE INDEX slow_rows_idx ON slow_rows (slow_key(n))`)
	stop()
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 {
		t.Fatal("no progress reported during a two-second index build")
	}
	for _, r := range got {
		if r.phase == "" || (r.unit != "blocks" && r.unit != "rows") || r.done < 0 || (r.total >= 0 && r.done > r.total) {
			t.Errorf("report %+v: want a phase, blocks or rows, and done within total", r)
		}
	}
}
