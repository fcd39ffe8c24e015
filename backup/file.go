package backup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// partialMark is in the name of the temporary file a backup is written to,
// ".NAME.partial-RANDOM" beside NAME.
const partialMark = ".partial-"

// WriteFile writes a backup of the database at url to file through a
// temporary file beside it, renamed into place once complete: a file of
// that name is always a whole backup. The temporary file is locked while
// it is written; the temporary files of earlier backups of the same name
// whose writer is gone (killed, or on a machine that stopped) are removed
// first.
func WriteFile(ctx context.Context, url, file string, o Options) (int64, error) {
	base := filepath.Base(file)
	dir := filepath.Dir(file)
	if err := RemoveStalePartials(dir, func(name string) bool { return name == base }); err != nil {
		return 0, err
	}
	tmp, err := createPartial(dir, base)
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	defer os.Remove(tmp.Name())
	n, err := Dump(ctx, url, tmp, o)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("backup: %w", cerr)
	}
	if err != nil {
		return n, err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return n, fmt.Errorf("backup: %w", err)
	}
	return n, nil
}

// createPartial creates and locks a temporary file for a backup named base
// in dir. A file that RemoveStalePartials took for stale between its
// creation and its lock is gone from dir by the time the lock is held; then
// another is made.
func createPartial(dir, base string) (*os.File, error) {
	for {
		f, err := os.CreateTemp(dir, "."+base+partialMark+"*")
		if err != nil {
			return nil, err
		}
		if err := lockFile(f); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
		held, err1 := f.Stat()
		named, err2 := os.Stat(f.Name())
		if err1 == nil && err2 == nil && os.SameFile(held, named) {
			return f, nil
		}
		f.Close()
		if err1 != nil {
			return nil, err1
		}
		if err2 != nil && !errors.Is(err2, fs.ErrNotExist) {
			return nil, err2
		}
	}
}

// RemoveStalePartials removes from dir the temporary files of backups
// whose names match and whose writer is gone: a writer holds a lock on its
// temporary file until it is done, and the lock goes with the process.
func RemoveStalePartials(dir string, match func(name string) bool) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		i := strings.LastIndex(name, partialMark)
		if e.IsDir() || !strings.HasPrefix(name, ".") || i < 1 || !match(name[1:i]) {
			continue
		}
		if err := removeIfStale(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("backup: remove a stale partial backup: %w", err)
		}
	}
	return nil
}

// removeIfStale removes the file at path unless a writer holds its lock.
func removeIfStale(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	stale, err := unlocked(f)
	if err != nil || !stale {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
