//go:build !linux

package confine

import (
	"os/exec"
)

// Warm does nothing here.
func Warm(root string) {}

// DefaultMode is ModeBestEffort: there is no kernel confinement here.
func DefaultMode() Mode { return ModeBestEffort }

// Box starts programs unconfined on this platform and says so.
type Box struct {
	mode   Mode
	report Report
	key    string
}

// Open returns an unconfined box, or ErrUnsupported in ModeRequired.
func Open(spec Spec, mode Mode) (*Box, error) {
	if mode == "" {
		mode = DefaultMode()
	}
	if mode == ModeRequired {
		return nil, ErrUnsupported
	}
	r := Report{Mode: mode, Filesystem: "unconfined", Network: "unconfined"}
	if mode != ModeOff {
		r.Missing = []string{"kernel confinement: only Linux is supported"}
	}
	return &Box{mode: mode, report: r, key: SpecKey(spec, mode)}, nil
}

// Key is SpecKey of the box as Open made it.
func (b *Box) Key() string { return b.key }

// Report says what the box applies: nothing.
func (b *Box) Report() Report { return b.report }

// Close does nothing.
func (b *Box) Close() error { return nil }

// CloseLast does nothing.
func (b *Box) CloseLast() error { return nil }

// Start starts cmd unconfined.
func (b *Box) Start(cmd *exec.Cmd, leader Process) (Process, error) { return StartDirect(cmd, leader) }

// StartWith starts cmd unconfined.
func (b *Box) StartWith(cmd *exec.Cmd, leader Process, _ StartOptions) (Process, error) {
	return StartDirect(cmd, leader)
}

// Group bounds the processes of one run; here it groups nothing.
type Group struct{}

// Close does nothing.
func (g *Group) Close() {}

// NewGroup returns nil: there are no process groups to make here.
func (b *Box) NewGroup() (*Group, error) { return nil, nil }

// SpecKey names what a box is built from; here, its mode and spec.
func SpecKey(spec Spec, mode Mode) string { return string(specText(spec, mode)) }

// OOMKills is -1: there is no memory cgroup here.
func (g *Group) OOMKills() int { return -1 }

// CanGrantNetwork: an unconfined program has the network as vtexec has.
func (b *Box) CanGrantNetwork() bool { return true }

// KeepReady does nothing: programs start without a helper here.
func (b *Box) KeepReady(git bool) {}
