package web_test

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/tenurehq/tenure/auth"
	"github.com/tenurehq/tenure/server"
)

// TestConcurrentLoginMemory measures what 32 concurrent sign-ins cost in
// resident memory (go test ./web/ -run TestConcurrentLoginMemory -v). It logs the process's RSS before, its peak
// during (VmHWM, reset first through /proc/self/clear_refs where allowed) and
// after, and fails when the peak grows by more than MaxConcurrentHashes
// argon2id computations (64 MiB each) and 64 MiB of slack. PostgreSQL runs in
// its own processes and is not counted. Linux only.
func TestConcurrentLoginMemory(t *testing.T) {
	f, _ := newConfiguredFixture(t, server.Config{})
	var before, hwmBefore int64
	resetHWM := false
	concurrentLogins(t, f, 32, func() {
		runtime.GC()
		debug.FreeOSMemory()
		resetHWM = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
		before, hwmBefore = procStatus(t, "VmRSS"), procStatus(t, "VmHWM")
	})
	peak, after := procStatus(t, "VmHWM"), procStatus(t, "VmRSS")
	runtime.GC()
	debug.FreeOSMemory()
	settled := procStatus(t, "VmRSS")
	const mib = 1 << 20
	t.Logf("32 concurrent sign-ins: RSS before %d MiB, peak %d MiB (VmHWM before %d MiB, reset %t), after %d MiB, after GC %d MiB; growth %d MiB",
		before/mib, peak/mib, hwmBefore/mib, resetHWM, after/mib, settled/mib, (peak-before)/mib)
	if !resetHWM && peak == hwmBefore {
		t.Log("VmHWM could not be reset and did not grow: the peak is the process's earlier one")
	}
	limit := int64(auth.MaxConcurrentHashes)*64*mib + 64*mib
	if peak-before > limit {
		t.Errorf("peak RSS grew by %d MiB, want at most %d MiB (%d hashes of 64 MiB and 64 MiB slack)",
			(peak-before)/mib, limit/mib, auth.MaxConcurrentHashes)
	}
}

// procStatus reads a memory figure of /proc/self/status, in bytes.
func procStatus(t *testing.T, field string) int64 {
	t.Helper()
	file, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatalf("no /proc/self/status: %v", err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", field, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}
