package pglocal

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"slices"
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
	return sharedBuffersFor(memoryLimit(os.ReadFile))
}

func sharedBuffersFor(limit int64) string {
	b := limit / 4
	b = max(minSharedBuffers, min(b, maxSharedBuffers))
	return strconv.FormatInt(b>>20, 10) + "MB"
}

// memoryLimit is the lower of MemTotal in /proc/meminfo and every memory
// limit of this process's control group and its ancestors (cgroup v2
// memory.max, v1 memory.limit_in_bytes), found through /proc/self/cgroup;
// 0 when none is known.
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
	for _, name := range cgroupLimitFiles(read) {
		if b, err := read(name); err == nil {
			// "max" (no limit) does not parse and is skipped.
			if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
				lower(v)
			}
		}
	}
	return limit
}

// cgroupLimitFiles lists the memory limit files of this process's control
// group and of each of its ancestors, for cgroup v2 and v1. Without
// /proc/self/cgroup it lists the root ones.
func cgroupLimitFiles(read func(string) ([]byte, error)) []string {
	v2, v1 := "/", "/"
	if b, err := read("/proc/self/cgroup"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			// hierarchy-ID:controllers:path
			parts := strings.SplitN(sc.Text(), ":", 3)
			if len(parts) != 3 {
				continue
			}
			switch {
			case parts[0] == "0" && parts[1] == "":
				v2 = parts[2]
			case slices.Contains(strings.Split(parts[1], ","), "memory"):
				v1 = parts[2]
			}
		}
	}
	var files []string
	for _, dir := range ancestors(v2) {
		files = append(files, path.Join("/sys/fs/cgroup", dir, "memory.max"))
	}
	for _, dir := range ancestors(v1) {
		files = append(files, path.Join("/sys/fs/cgroup/memory", dir, "memory.limit_in_bytes"))
	}
	return files
}

// ancestors returns p and each folder above it, up to "/".
func ancestors(p string) []string {
	p = path.Clean("/" + p)
	out := []string{p}
	for p != "/" {
		p = path.Dir(p)
		out = append(out, p)
	}
	return out
}
