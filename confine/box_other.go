//go:build !linux

package confine

import (
	"os/exec"
	"runtime"
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
		r.Missing = []string{missingHere()}
		r.JobObject = runtime.GOOS == "windows"
	}
	return &Box{mode: mode, report: r, key: SpecKey(spec, mode)}, nil
}

// missingHere says what this platform's box lacks.
func missingHere() string {
	switch runtime.GOOS {
	case "windows":
		return "kernel confinement: none on Windows — files and the network are not confined, only vtexec's checks hold; a job object ends each run's processes with the run and with vtexec"
	case "darwin":
		return "kernel confinement: none on macOS yet — files and the network are not confined, only vtexec's checks hold (the Seatbelt profile is built but not applied)"
	}
	return "kernel confinement: only Linux is supported"
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

// StartWith starts cmd unconfined, in opts.Group if there is one.
func (b *Box) StartWith(cmd *exec.Cmd, leader Process, opts StartOptions) (Process, error) {
	p, err := StartDirect(cmd, leader)
	if err != nil {
		return nil, err
	}
	if err := opts.Group.adopt(cmd); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, err
	}
	return p, nil
}

// SpecKey names what a box is built from; here, its mode and spec.
func SpecKey(spec Spec, mode Mode) string { return string(specText(spec, mode)) }

// CanGrantNetwork: an unconfined program has the network as vtexec has.
func (b *Box) CanGrantNetwork() bool { return true }

// KeepReady does nothing: programs start without a helper here.
func (b *Box) KeepReady(git bool) {}
