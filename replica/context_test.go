package replica

import (
	"context"
	"testing"
	"time"
)

// TestReadContext: reads are routed only under a context made by
// WithMinLSN, until a write or UsePrimary sends them to the primary; the
// state is shared by the contexts derived from it.
func TestReadContext(t *testing.T) {
	if _, ok := MinLSN(context.Background()); ok {
		t.Error("MinLSN of a plain context is ok, want reads there to go to the primary")
	}
	NoteWrite(context.Background()) // nothing to note in: no panic
	UsePrimary(context.Background())
	if n := Writes(context.Background()); n != 0 {
		t.Errorf("Writes of a plain context = %d, want 0", n)
	}

	ctx := WithMinLSN(context.Background(), 0x16_B374D848)
	if lsn, ok := MinLSN(ctx); !ok || lsn != 0x16_B374D848 {
		t.Errorf("MinLSN = %s, %t; want 16/B374D848, true", lsn, ok)
	}
	derived, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	NoteWrite(derived)
	NoteWrite(derived)
	if _, ok := MinLSN(ctx); ok {
		t.Error("MinLSN after a write is ok, want the primary")
	}
	if n := Writes(ctx); n != 2 {
		t.Errorf("Writes = %d, want the 2 noted under a derived context", n)
	}

	ctx = WithMinLSN(context.Background(), 0)
	UsePrimary(ctx)
	if _, ok := MinLSN(ctx); ok {
		t.Error("MinLSN after UsePrimary is ok, want the primary")
	}
	if n := Writes(ctx); n != 0 {
		t.Errorf("Writes after UsePrimary = %d, want 0: it is no write", n)
	}
}

// TestRecordEnd: an insert position just past a page's header stands for
// the page's start; any other is the end of a record as it is.
func TestRecordEnd(t *testing.T) {
	const block, segment = 8192, 16 << 20
	for _, tt := range []struct {
		in, want LSN
	}{
		{0x3000028, 0x3000000}, // past a segment's long header
		{0x3002018, 0x3002000}, // past a page's short header
		{0x3000018, 0x3000018}, // 24 bytes into a segment: inside its long header's page, a record's end
		{0x3002028, 0x3002028},
		{0x3001168, 0x3001168},
		{0x3000000, 0x3000000},
	} {
		if got := recordEnd(tt.in, block, segment); got != tt.want {
			t.Errorf("recordEnd(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if got := recordEnd(0x3000028, 0, 0); got != 0x3000028 {
		t.Errorf("recordEnd without sizes = %s, want the position as it is", got)
	}
}

// TestCurrentLSNAfterSegmentSwitch: right after a WAL segment switch, with
// nothing written since, CurrentLSN is the segment's start, which a
// standby that has replayed everything reaches, not the position past the
// new segment's header that pg_current_wal_insert_lsn reports.
func TestCurrentLSNAfterSegmentSwitch(t *testing.T) {
	s := newStandby(t, nil)
	r, p, pools := testRouter(t, 3*time.Second, s)
	exec(t, p, "DROP TABLE IF EXISTS switched; CREATE TABLE switched (body text)")
	lsn := write(t, r, "switched", "before the switch")
	exec(t, p, "SELECT pg_switch_wal()")
	after, err := r.CurrentLSN(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var insert LSN
	if err := p.QueryRow(t.Context(), "SELECT pg_current_wal_insert_lsn()").Scan(&insert); err != nil {
		t.Fatal(err)
	}
	if insert%(16<<20) == longPageHeader && after != insert-longPageHeader {
		t.Errorf("CurrentLSN right after a switch = %s, want the segment's start %s (the insert position is %s)", after, insert-longPageHeader, insert)
	}
	if after <= lsn {
		t.Errorf("CurrentLSN after the switch = %s, want past the write's %s", after, lsn)
	}
	waitFor(t, r, "the standby to reach the position after the switch", func() bool { return r.Pick(after) == pools[0] })
}
