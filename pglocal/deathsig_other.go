//go:build unix && !linux && !freebsd

package pglocal

import "syscall"

// setDeathSignal does nothing: this OS has no parent-death signal, so a
// server whose parent is killed outright keeps running until stopped; a later
// Start then reports the data folder as in use by it.
func setDeathSignal(attr *syscall.SysProcAttr, sig syscall.Signal) {}
