package pglocal

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Bounds of SharedBuffers, in bytes.
const (
	minSharedBuffers = 128 << 20 // PostgreSQL's own default
	maxSharedBuffers = 2 << 30   // a million facts with their indexes fit in about 1.2 GB
)

// SharedBuffers returns a shared_buffers setting for a cluster that serves
// one application on this machine: a quarter of the memory this process may
// use (the machine's, or its control group's limit when lower), the rule of
// thumb of PostgreSQL's documentation, between 128MB and 2GB. Where the
// memory cannot be read it returns "128MB", PostgreSQL's default.
func SharedBuffers() string {
	return sharedBuffersFor(memoryLimit(readFile))
}

func readFile(name string) ([]byte, error) { return os.ReadFile(name) }

func sharedBuffersFor(limit int64) string {
	b := limit / 4
	b = max(minSharedBuffers, min(b, maxSharedBuffers))
	return strconv.FormatInt(b>>20, 10) + "MB"
}

// memoryLimit is the lower of MemTotal in /proc/meminfo and the cgroup v2
// (memory.max) or v1 (memory.limit_in_bytes) limit; 0 when none is known.
func memoryLimit(read func(string) ([]byte, error)) int64 {
	var limit int64
	lower := func(v int64) {
		if v > 0 && (limit == 0 || v < limit) {
			limit = v
		}
	}
	if b, err := read("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					lower(kb << 10)
				}
			}
		}
	}
	for _, name := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := read(name); err == nil {
			// "max" (no limit) does not parse and is skipped.
			if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
				lower(v)
			}
		}
	}
	return limit
}
