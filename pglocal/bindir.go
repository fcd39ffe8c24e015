package pglocal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrNoBinaries reports that no PostgreSQL server binaries (postgres and
// initdb) could be found. FindBinDir and Start return it wrapped in an error
// whose message says how to fix the problem.
var ErrNoBinaries = errors.New("no PostgreSQL server binaries found")

// binFinder holds the lookups FindBinDir performs, so tests can replace them
// and simulate a machine without PostgreSQL.
type binFinder struct {
	// getenv reads PG_BIN.
	getenv func(string) string
	// lookPath finds a program on PATH, like exec.LookPath.
	lookPath func(string) (string, error)
	// pgConfigBinDir runs the given pg_config with --bindir.
	pgConfigBinDir func(pgConfig string) (string, error)
	// versionedRoot holds one folder per major version, each with a bin
	// folder, as Debian and Ubuntu install PostgreSQL.
	versionedRoot string
}

// FindBinDir returns the folder holding the PostgreSQL server binaries
// postgres and initdb. It looks, in order, at the PG_BIN environment variable
// (read with getenv, os.Getenv when nil), at the output of pg_config --bindir,
// at the highest-versioned /usr/lib/postgresql/*/bin, and at PATH. When PG_BIN
// is set it is the only place looked at. When nothing is found the error
// wraps ErrNoBinaries.
func FindBinDir(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	f := binFinder{
		getenv:         getenv,
		lookPath:       exec.LookPath,
		pgConfigBinDir: runPgConfigBinDir,
		versionedRoot:  "/usr/lib/postgresql",
	}
	return f.find()
}

// find implements FindBinDir.
func (f binFinder) find() (string, error) {
	if dir := f.getenv("PG_BIN"); dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		if hasBinaries(dir) {
			return dir, nil
		}
		return "", fmt.Errorf("pglocal: PG_BIN points at %s, a folder without the PostgreSQL server binaries postgres and initdb: %w; set PG_BIN to the bin folder of a PostgreSQL installation (e.g. /usr/lib/postgresql/16/bin) or unset it", dir, ErrNoBinaries)
	}
	if pgConfig, err := f.lookPath("pg_config"); err == nil {
		if dir, err := f.pgConfigBinDir(pgConfig); err == nil && hasBinaries(dir) {
			return dir, nil
		}
	}
	if dir := highestVersionedBinDir(f.versionedRoot); dir != "" {
		return dir, nil
	}
	if dir := pathBinDir(f.lookPath); dir != "" {
		return dir, nil
	}
	return "", fmt.Errorf("pglocal: %w (looked in PG_BIN, pg_config --bindir, %s, PATH): install PostgreSQL (e.g. apt-get install postgresql), set PG_BIN to its bin folder, or set DATABASE_URL to use an existing server",
		ErrNoBinaries, filepath.Join(f.versionedRoot, "*", "bin"))
}

// runPgConfigBinDir runs pgConfig --bindir and returns the folder it prints.
func runPgConfigBinDir(pgConfig string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, pgConfig, "--bindir").Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// highestVersionedBinDir returns root/<version>/bin for the highest numeric
// version that holds the server binaries, or "" when there is none.
func highestVersionedBinDir(root string) string {
	if root == "" {
		return ""
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return ""
	}
	var best []int
	bestDir := ""
	for _, e := range entries {
		v, ok := parseVersion(e.Name())
		if !ok {
			continue
		}
		dir := filepath.Join(root, e.Name(), "bin")
		if !hasBinaries(dir) {
			continue
		}
		if bestDir == "" || compareVersions(v, best) > 0 {
			best, bestDir = v, dir
		}
	}
	return bestDir
}

// pathBinDir returns the folder of postgres found on PATH when initdb lives
// next to it, resolving symbolic links first (Debian links the binaries into
// /usr/bin or /usr/local/bin), or "" when there is none.
func pathBinDir(lookPath func(string) (string, error)) string {
	postgres, err := lookPath("postgres")
	if err != nil {
		return ""
	}
	if _, err := lookPath("initdb"); err != nil {
		return ""
	}
	if resolved, err := filepath.EvalSymlinks(postgres); err == nil {
		if dir := filepath.Dir(resolved); hasBinaries(dir) {
			return dir
		}
	}
	if dir := filepath.Dir(postgres); hasBinaries(dir) {
		return dir
	}
	return ""
}

// hasBinaries reports whether dir holds executable postgres and initdb files.
func hasBinaries(dir string) bool {
	if dir == "" {
		return false
	}
	for _, name := range [...]string{"postgres", "initdb"} {
		fi, err := os.Stat(filepath.Join(dir, name+exeSuffix))
		if err != nil || !fi.Mode().IsRegular() || (exeSuffix == "" && fi.Mode().Perm()&0o111 == 0) {
			return false
		}
	}
	return true
}

// parseVersion parses a folder name such as "9.6" or "16" into its numeric
// parts.
func parseVersion(s string) ([]int, bool) {
	parts := strings.Split(s, ".")
	v := make([]int, 0, len(parts))
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		v = append(v, n)
	}
	return v, true
}

// compareVersions compares two numeric versions part by part, a missing part
// counting as lower than any present one.
func compareVersions(a, b []int) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}
