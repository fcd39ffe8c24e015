//go:build !unix

package pglocal

import (
	"io/fs"
	"os/exec"
	"syscall"
)

// exeSuffix is the file name suffix of executables.
const exeSuffix = ".exe"

// account is the operating system user the PostgreSQL processes run as; on
// this OS always the current user.
type account struct {
	switchUser bool
	name       string
	uid, gid   int
}

// serverAccount returns the current user.
func serverAccount() (*account, error) {
	return &account{name: "the current user"}, nil
}

// sysProcAttr returns no special process attributes.
func (a *account) sysProcAttr(deathSig syscall.Signal) *syscall.SysProcAttr { return nil }

// canTraverse reports true: permissions are not checked on this OS.
func (a *account) canTraverse(fi fs.FileInfo) bool { return true }

// ownerOf reports that file owners are unknown on this OS.
func ownerOf(fi fs.FileInfo) (uid int, ok bool) { return 0, false }

// signalProcess kills the process: this OS cannot deliver signals, so the
// server gets an immediate rather than a fast shutdown.
func signalProcess(cmd *exec.Cmd, sig syscall.Signal) error { return cmd.Process.Kill() }

// killProcessGroup kills the process.
func killProcessGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// processAlive cannot tell on this platform; attaching is not offered.
func processAlive(int) bool { return false }

// Freezing a server needs job-control signals, which this system lacks:
// Cluster.Freeze and Thaw fail (Process.Signal refuses them).
const (
	sigStop = syscall.Signal(19)
	sigCont = syscall.Signal(18)
)
