//go:build unix

package pglocal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// exeSuffix is the file name suffix of executables.
const exeSuffix = ""

// account is the operating system user the PostgreSQL processes run as.
type account struct {
	// switchUser is true when the processes run as another user than this
	// process (this process runs as root, which PostgreSQL refuses).
	switchUser bool
	name       string
	uid, gid   int
	// groups are the supplementary groups the processes will have.
	groups []uint32
	// setGroups is false when the kernel forbids setgroups (some user
	// namespaces); the processes then keep this process's supplementary
	// groups, which groups already reflects.
	setGroups bool
}

// serverAccount returns the account to run PostgreSQL as: the current user,
// or the user "postgres" when running as root.
func serverAccount() (*account, error) {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		name := "the current user"
		if err == nil {
			name = strconv.Quote(u.Username)
		}
		return &account{name: name, uid: os.Geteuid(), gid: os.Getegid()}, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("pglocal: running as root, which PostgreSQL refuses, and there is no user \"postgres\" to run it as (%w): create one (e.g. useradd --system postgres) or run as a regular user", err)
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return nil, fmt.Errorf("pglocal: user postgres: bad uid %q", u.Uid)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return nil, fmt.Errorf("pglocal: user postgres: bad gid %q", u.Gid)
	}
	a := &account{switchUser: true, name: `"postgres"`, uid: uid, gid: gid, setGroups: setgroupsAllowed()}
	if a.setGroups {
		a.groups = []uint32{uint32(gid)}
		if ids, err := u.GroupIds(); err == nil {
			for _, id := range ids {
				if n, err := strconv.ParseUint(id, 10, 32); err == nil && !slices.Contains(a.groups, uint32(n)) {
					a.groups = append(a.groups, uint32(n))
				}
			}
		}
	} else if gs, err := os.Getgroups(); err == nil {
		for _, g := range gs {
			a.groups = append(a.groups, uint32(g))
		}
	}
	return a, nil
}

// setgroupsAllowed reports whether this process may call setgroups; inside a
// user namespace /proc/self/setgroups may say "deny".
func setgroupsAllowed() bool {
	b, err := os.ReadFile("/proc/self/setgroups")
	if err != nil {
		return true
	}
	return strings.TrimSpace(string(b)) != "deny"
}

// sysProcAttr returns the process attributes for a PostgreSQL program: its
// own process group (so a terminal's Ctrl-C reaches only this process, which
// then shuts the server down in order), the account's credentials, and
// deathSig delivered when this process dies, where the OS supports it.
func (a *account) sysProcAttr(deathSig syscall.Signal) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if a.switchUser {
		attr.Credential = &syscall.Credential{
			Uid:         uint32(a.uid),
			Gid:         uint32(a.gid),
			Groups:      a.groups,
			NoSetGroups: !a.setGroups,
		}
	}
	setDeathSignal(attr, deathSig)
	return attr
}

// canTraverse reports whether the account may enter the folder described by
// fi, judging by its owner, group and permission bits (ACLs are ignored).
func (a *account) canTraverse(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	perm := fi.Mode().Perm()
	switch {
	case a.uid == 0:
		return true
	case int(st.Uid) == a.uid:
		return perm&0o100 != 0
	case int(st.Gid) == a.gid || slices.Contains(a.groups, st.Gid):
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}

// ownerOf returns the user id owning the file described by fi.
func ownerOf(fi fs.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// signalProcess sends sig to the process alone.
func signalProcess(cmd *exec.Cmd, sig syscall.Signal) error {
	return cmd.Process.Signal(sig)
}

// killProcessGroup kills the process and every process of its group (the
// server's backends), which Setpgid made a group of its own.
func killProcessGroup(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}

// processAlive reports whether a process with pid exists.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// The signals that freeze and thaw a server (Cluster.Freeze, Thaw).
const (
	sigStop = syscall.SIGSTOP
	sigCont = syscall.SIGCONT
)
