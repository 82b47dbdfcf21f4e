//go:build !linux

package confine

import (
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"

	"github.com/vtexec/vtexec/internal/inherited"
)

// Warm does nothing here.
func Warm(root string) {}

// WarmOnce does nothing here.
func WarmOnce(root string) {}

// PrepareNamespaces does nothing here.
func PrepareNamespaces() {}

// KeepNamespacesIn does nothing here: no namespace is kept.
func KeepNamespacesIn(dir string) {}

// LeaveNamespacesAtExit does nothing here: no program has a mount
// namespace of its own.
func LeaveNamespacesAtExit(leave func(*os.File) bool) {}

// DefaultMode is ModeBestEffort: there is no kernel confinement here.
func DefaultMode() Mode { return ModeBestEffort }

// Box starts programs unconfined on this platform and says so.
type Box struct {
	mode   Mode
	report Report
	key    string
	// seatbelt is the spec whose Seatbelt profile each program starts
	// under (macOS, opted in), or nil.
	seatbelt *Spec
}

// inheritedOnce marks the process's inherited descriptors once.
var inheritedOnce sync.Once

// Open returns an unconfined box, or ErrUnsupported in ModeRequired.
func Open(spec Spec, mode Mode) (*Box, error) {
	if mode == "" {
		mode = DefaultMode()
	}
	if mode == ModeRequired {
		return nil, ErrUnsupported
	}
	inheritedOnce.Do(func() { inherited.CloseOnExec() }) // as on Linux
	r := Report{Mode: mode, Filesystem: "unconfined", Network: "unconfined"}
	b := &Box{mode: mode, key: SpecKey(spec, mode)}
	if mode != ModeOff {
		r.Missing = []string{missingHere()}
		r.JobObject = runtime.GOOS == "windows"
	}
	if mode != ModeOff && spec.Seatbelt && runtime.GOOS == "darwin" {
		if _, err := os.Stat(SeatbeltLauncher); err != nil {
			r.Missing = append(r.Missing, "seatbelt: "+SeatbeltLauncher+" is missing, so the profile the policy opts in to is not applied")
		} else {
			s := spec
			b.seatbelt = &s
			r.Filesystem, r.Network, r.Seatbelt = "seatbelt", "seatbelt", seatbeltApplied
			r.Missing = []string{"seatbelt: the profile is untested — no test of vtexec has run it on macOS; what it confines is not proven",
				"process tree: no PID namespace — a program that leaves its process group can outlive the run and vtexec",
				"limits: no cgroup — memory and process counts are bounded only per process"}
		}
	}
	b.report = r
	return b, nil
}

// missingHere says what this platform's box lacks.
func missingHere() string {
	switch runtime.GOOS {
	case "windows":
		return "kernel confinement: none on Windows — files and the network are not confined, only vtexec's checks hold; a job object ends each run's processes with the run and with vtexec"
	case "darwin":
		return "kernel confinement: none on macOS unless the user's policy opts in to the untested Seatbelt profile (seatbelt = true) — files and the network are not confined, only vtexec's checks hold"
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

// Start starts cmd, unconfined but for an opted-in Seatbelt profile.
func (b *Box) Start(cmd *exec.Cmd, leader Process) (Process, error) {
	return b.StartWith(cmd, leader, StartOptions{})
}

// StartWith starts cmd, unconfined but for an opted-in Seatbelt
// profile, in opts.Group if there is one.
func (b *Box) StartWith(cmd *exec.Cmd, leader Process, opts StartOptions) (Process, error) {
	if b.seatbelt != nil {
		spec := *b.seatbelt
		spec.Network = spec.Network || opts.Network
		if err := seatbeltWrap(cmd, SeatbeltLauncher, SeatbeltProfile(spec, opts.Git)); err != nil {
			return nil, err
		}
	}
	opts.Group.prepare(cmd)
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

// NoteRequest does nothing: no helper is started ahead here.
func NoteRequest() {}

// LastRequest is the zero time: NoteRequest notes nothing here.
func LastRequest() time.Time { return time.Time{} }

// UseHelperProgram does nothing here: no helper starts programs.
func UseHelperProgram(*os.File) error { return nil }
