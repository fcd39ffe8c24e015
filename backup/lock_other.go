//go:build !unix

package backup

import (
	"os"
	"time"
)

// lockFile does nothing where flock is not available.
func lockFile(f *os.File) error { return nil }

// unlocked cannot see a writer's lock here: a temporary file is taken for
// stale when no one has written to it for a day.
func unlocked(f *os.File) (bool, error) {
	info, err := f.Stat()
	if err != nil {
		return false, err
	}
	return time.Since(info.ModTime()) > 24*time.Hour, nil
}
