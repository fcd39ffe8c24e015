//go:build unix

package backup

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f, held until f is closed or the
// process ends.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
}

// unlocked reports whether no one holds a lock on f; if so, f holds one
// until it is closed.
func unlocked(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
