//go:build linux || freebsd

package pglocal

import "syscall"

// setDeathSignal asks the kernel to send sig to the child when this process
// dies. The kernel ties this to the thread that forked the child, not to the
// process; startProcess therefore forks from a goroutine locked to its OS
// thread and keeps that goroutine (and so the thread) alive, blocked in Wait,
// for as long as the child runs. The Go runtime does not retire idle threads
// otherwise, so the signal fires only when the whole process dies.
func setDeathSignal(attr *syscall.SysProcAttr, sig syscall.Signal) {
	attr.Pdeathsig = sig
}
