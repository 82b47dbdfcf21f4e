//go:build !(linux && amd64)

package vspawn

import (
	"errors"
	"os"
	"syscall"
)

// Available says whether Start works on this platform.
const Available = false

// Attr is what the child is made with (see the linux/amd64 Start).
type Attr struct {
	Path       string
	Argv       []string
	Env        []string
	Dir        string
	Files      []uintptr
	Cloneflags uintptr
	UID, GID   int
	Setpgid    bool
	Pdeathsig  syscall.Signal
	JoinUser   *os.File
	JoinNet    *os.File
	Setup      *Calls
	Rlimits    []Rlimit
}

// CloneError is a clone the kernel refused (see the linux/amd64 Start).
type CloneError struct{ Err syscall.Errno }

func (e *CloneError) Error() string { return "vspawn: clone: " + e.Err.Error() }
func (e *CloneError) Unwrap() error { return e.Err }

// CallError is a call of the child's that failed (see the linux/amd64
// Start).
type CallError struct {
	Call string
	Err  syscall.Errno
	Exec bool
}

func (e *CallError) Error() string { return "vspawn: " + e.Call + ": " + e.Err.Error() }
func (e *CallError) Unwrap() error { return e.Err }

// Start is not available here: callers start the program as before.
func Start(Attr) (int, error) { return 0, errors.New("vspawn: not available on this platform") }

// Namespaces is not available here.
func Namespaces(uid, gid int, setup *Calls) (user, net *os.File, err error) {
	return nil, nil, errors.New("vspawn: not available on this platform")
}

// MountNamespace is not available here.
func MountNamespace(user *os.File, setup *Calls) (*os.File, error) {
	return nil, errors.New("vspawn: not available on this platform")
}

// ParkAttr is what a parked child is made with (see the linux/amd64
// Park).
type ParkAttr struct {
	Cloneflags        uintptr
	JoinUser, JoinNet *os.File
	Setpgid           bool
	Pdeathsig         syscall.Signal
	Setup             *Calls
	Rlimits           []Rlimit
	Files             int
}

// Parked is a child made ahead (see the linux/amd64 Park).
type Parked struct{}

// ErrNotParked is a Parked that cannot take the program.
var ErrNotParked = errors.New("vspawn: the parked child cannot take this program")

// Park is not available here.
func Park(ParkAttr) (*Parked, error) {
	return nil, errors.New("vspawn: not available on this platform")
}

// Pid is 0: there is no child.
func (*Parked) Pid() int { return 0 }

// Start cannot start anything here.
func (*Parked) Start(string, []string, []string, string, []uintptr) (int, error) {
	return 0, ErrNotParked
}

// Discard has nothing to end here.
func (*Parked) Discard() {}
