//go:build unix

package backup_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tenurehq/tenure/backup"
	"github.com/tenurehq/tenure/demo"
	"github.com/tenurehq/tenure/internal/pgtest"
)

// partials lists the temporary files of backups in dir.
func partials(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".partial-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// waitUnlocked waits until no process holds a lock on the file at path. A
// killed writer's lock goes with the last process that has the file open:
// a child it was forking (for pg_dump) at the instant of the kill may hold
// it a moment after the writer is gone.
func waitUnlocked(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	for syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		if time.Since(start) > 30*time.Second {
			t.Fatalf("%s is still locked 30 s after its writer was killed", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if d := time.Since(start); d > 10*time.Millisecond {
		t.Logf("the killed writer's lock went %v after it", d.Round(time.Millisecond))
	}
}

// TestKilledBackupsLeaveNoPartialBehind: a backup SIGKILLed while it
// writes (in a child process: this test binary, re-executed) leaves its
// temporary file, and the next backup of the same name removes it, five
// times over; a temporary file a live writer holds is kept.
func TestKilledBackupsLeaveNoPartialBehind(t *testing.T) {
	url := pgtest.NewURL(t)
	if _, err := demo.Load(context.Background(), pgtest.Connect(t, url), time.Now()); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "tenure.dump")
	// Each backup removes the temporary file of the one killed before it.
	var killed string
	for i := range 5 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), writeChildURL+"="+url, writeChildFile+"="+file)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var left []string
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if left = partials(t, dir); len(left) == 1 && left[0] != killed {
				break
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		if _, err := os.Stat(file); err == nil {
			t.Fatalf("kill %d: the backup finished before it was killed", i+1)
		}
		if left = partials(t, dir); len(left) != 1 || left[0] == killed {
			t.Fatalf("kill %d: the folder holds %v; the one killed before was %s", i+1, left, killed)
		}
		killed = left[0]
		waitUnlocked(t, filepath.Join(dir, killed))
	}

	// A backup being written by someone else (its lock held) is left.
	live, err := os.Create(filepath.Join(dir, ".tenure.dump.partial-live"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if err := syscall.Flock(int(live.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if _, err := backup.WriteFile(context.Background(), url, file, backup.Options{}); err != nil {
		t.Fatal(err)
	}
	if left := partials(t, dir); len(left) != 1 || left[0] != ".tenure.dump.partial-live" {
		t.Errorf("after the next backup, the folder holds %v, want only the live writer's", left)
	}
	if info, err := os.Stat(file); err != nil || info.Size() == 0 {
		t.Errorf("the next backup: %v", err)
	}
}
