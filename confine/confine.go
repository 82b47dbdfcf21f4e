package confine

import (
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"syscall"
)

// Mode says how much confinement a Box insists on.
type Mode string

const (
	// ModeRequired refuses to start anything unless the filesystem and
	// network rules and the process namespace can all be applied.
	ModeRequired Mode = "required"
	// ModeBestEffort applies what the kernel and privileges allow and
	// reports the rest.
	ModeBestEffort Mode = "best-effort"
	// ModeOff starts programs unconfined.
	ModeOff Mode = "off"
)

// ParseMode reads a mode name; "" is the default, DefaultMode().
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "":
		return DefaultMode(), nil
	case ModeRequired, ModeBestEffort, ModeOff:
		return Mode(s), nil
	}
	return "", fmt.Errorf("confinement %q: use required, best-effort or off", s)
}

// Spec is what a box lets its programs touch.
type Spec struct {
	// ReadWrite are directories (or files) the programs may read, write,
	// create in and run from: the workspace, the private HOME and
	// TMPDIR, read-write extra roots.
	ReadWrite []string
	// ReadOnly are directories (or files) they may only read and run
	// from, besides the system directories every program needs.
	ReadOnly []string
	// Protected are paths inside the read-write directories that
	// programs may read but never change or remove; with Placeholders,
	// a missing directory name gets an empty placeholder directory (and
	// with PlaceholderFiles a missing file name an empty file), so it
	// cannot be created either. Otherwise a missing name can be.
	Protected []Protected
	// GitDirs are git directories inside the read-write directories:
	// read-only for every program but git, which may write them except
	// their hooks and config.
	GitDirs []string
	// Placeholders lets the box create missing protected directory
	// names as empty, marked directories, left in place (see
	// PlaceholderMark). Without it, the empty marked directories an
	// earlier box made are removed.
	Placeholders bool
	// PlaceholderFiles does the same for missing protected file names,
	// as empty files.
	PlaceholderFiles bool
	// Network lets programs use the network as vtexec itself can.
	Network bool
	// Seatbelt applies the box's Seatbelt profile on macOS (see
	// SeatbeltProfile), which a person opts in to: it is untested.
	// Elsewhere it changes nothing.
	Seatbelt bool
	// Limits bound each process.
	Limits Limits
}

// Protected is a path no program of the box may change.
type Protected struct {
	Path string
	Dir  bool // a directory name, which can get a placeholder
}

// Limits are resource limits set on every process of the box; a zero
// field leaves that limit as vtexec's own.
type Limits struct {
	FileSize  uint64 `json:"file_size,omitempty"`  // bytes one file may grow to (RLIMIT_FSIZE)
	OpenFiles uint64 `json:"open_files,omitempty"` // open file descriptors per process (RLIMIT_NOFILE)
	Processes uint64 `json:"processes,omitempty"`  // processes of the user (RLIMIT_NPROC; does not bind root)
	CPUTime   uint64 `json:"cpu_time_s,omitempty"` // seconds of CPU per process (RLIMIT_CPU)
	// Memory bounds the memory of a workspace's commands together (a
	// memory cgroup, as root), else of each process alone (RLIMIT_DATA);
	// 0: half the machine's.
	Memory uint64 `json:"memory,omitempty"`
}

// Report says what a box applied. It is part of every run's result.
type Report struct {
	Mode Mode `json:"mode"`
	// Landlock is the Landlock ABI version whose rules were applied, 0
	// when none were.
	Landlock int `json:"landlock"`
	// Filesystem is "confined" when only the spec's paths and the system
	// directories are reachable, "seatbelt" under macOS's Seatbelt
	// profile a person opted in to (untested), else "unconfined".
	Filesystem string `json:"filesystem"`
	// NetworkGranted names the programs of the run a person's rule let
	// use the network (filled in by the caller, which knows the run).
	NetworkGranted []string `json:"network_granted,omitempty"`
	// Network is "denied" (a private network namespace, loopback only,
	// plus Landlock TCP rules where available), "tcp-denied" (Landlock
	// only: UDP and other sockets are not cut), "allowed" or
	// "unconfined".
	Network string `json:"network"`
	// NetworkHelper is what connects a granted program's own network
	// namespace to the outside ("slirp4netns"); empty where a grant
	// would run in the host's namespace (Landlock only) or cannot run.
	NetworkHelper string `json:"network_helper,omitempty"`
	// Scoped: signals and abstract unix sockets cannot leave the box.
	Scoped bool `json:"scoped"`
	// PIDNamespace: each pipeline runs in a PID namespace of its own, so
	// nothing it started outlives it or vtexec.
	PIDNamespace bool `json:"pid_namespace"`
	// IPCNamespace: each pipeline has an IPC namespace of its own, so
	// System V IPC and POSIX message queues it makes are gone with it.
	IPCNamespace bool `json:"ipc_namespace,omitempty"`
	// SyscallFilter: a seccomp filter refuses keyrings, BPF, perf
	// events, modules, mounts and new namespaces.
	SyscallFilter bool `json:"syscall_filter,omitempty"`
	// Capabilities is "dropped" when programs run with an empty
	// bounding set, "none" when vtexec had none to give.
	Capabilities string `json:"capabilities,omitempty"`
	// PidsCgroup: as root, the box's process count is bounded by a pids
	// cgroup (RLIMIT_NPROC does not bind root).
	PidsCgroup bool `json:"pids_cgroup,omitempty"`
	// MemoryCgroup: as root, the memory of a workspace's commands is
	// bounded together by a memory cgroup (Limits.Memory).
	MemoryCgroup bool `json:"memory_cgroup,omitempty"`
	// MemoryRlimit: without a memory cgroup, each process's heap and
	// private writable mappings are bounded alone (RLIMIT_DATA at
	// Limits.Memory).
	MemoryRlimit bool `json:"memory_rlimit,omitempty"`
	// Protected lists the paths the kernel keeps read-only; SocketsHidden
	// tells that the directories holding the machine's unix sockets are
	// covered.
	Protected     []string `json:"protected,omitempty"`
	SocketsHidden bool     `json:"sockets_hidden,omitempty"`
	// JobObject: on Windows, each run's processes are in a job object
	// that ends them with the run and when vtexec exits.
	JobObject bool `json:"job_object,omitempty"`
	// Seatbelt says, on macOS, that the box's Seatbelt profile is
	// applied, as a person opted in to, and that it is untested.
	Seatbelt string   `json:"seatbelt,omitempty"`
	Limits   *Limits  `json:"limits,omitempty"`
	Missing  []string `json:"missing,omitempty"` // what could not be applied, and why
}

// ErrUnsupported is returned by Open in ModeRequired when the kernel or
// the platform cannot confine; it wraps the reasons.
var ErrUnsupported = errors.New("confinement is required but not available")

// StartOptions widen the box for one program.
type StartOptions struct {
	// Network lets this program use the network, for a command a
	// person approved with network granted.
	Network bool
	// Git: the program runs git, which may write the box's git
	// directories except their hooks and config.
	Git bool
	// Group, if set, is the run's process group (see Box.NewGroup).
	Group *Group
}

// ErrPipelineEnded is returned by Start when the pipeline's last command,
// whose namespace the program was to join, has already exited: the
// program would only have written into a closed pipe.
var ErrPipelineEnded = errors.New("the pipeline's reader has already exited")

// Process is a started program.
type Process interface {
	// Pid is the process id as vtexec sees it.
	Pid() int
	// Wait waits for the program to exit, as exec.Cmd.Wait.
	Wait() error
	// Signal sends sig to the program.
	Signal(sig syscall.Signal) error
}

// cmdProcess is a Process started directly by exec.Cmd.
type cmdProcess struct{ cmd *exec.Cmd }

func (p cmdProcess) Pid() int                        { return p.cmd.Process.Pid }
func (p cmdProcess) Wait() error                     { return p.cmd.Wait() }
func (p cmdProcess) Signal(sig syscall.Signal) error { return p.cmd.Process.Signal(sig) }

// StartDirect starts cmd unconfined, in a new process group led by
// leader (nil: cmd leads a new one).
func StartDirect(cmd *exec.Cmd, leader Process) (Process, error) {
	setpgid(cmd, leader)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmdProcess{cmd}, nil
}

// PrivateShm is the box's own /dev/shm, a tmpfs of its new root (Linux):
// POSIX shared memory and semaphores of the box's programs live there.
const PrivateShm = "/dev/shm"

// specText is the mode and every field of spec, in an unambiguous text
// (each string with its length): what SpecKey names a box by. Written
// out by hand, as encoding/json would cost a fresh process ~90 µs the
// first time; TestSpecKeyHasEveryField fails on a field left out.
func specText(spec Spec, mode Mode) []byte {
	b := appendText(nil, string(mode))
	list := func(tag byte, l []string) {
		b = append(b, tag)
		b = strconv.AppendInt(b, int64(len(l)), 10)
		for _, s := range l {
			b = appendText(b, s)
		}
	}
	list('w', spec.ReadWrite)
	list('r', spec.ReadOnly)
	list('g', spec.GitDirs)
	b = append(b, 'p')
	b = strconv.AppendInt(b, int64(len(spec.Protected)), 10)
	for _, p := range spec.Protected {
		b = appendText(b, p.Path)
		b = appendBool(b, p.Dir)
	}
	b = appendBool(append(b, 'P'), spec.Placeholders)
	b = appendBool(append(b, 'F'), spec.PlaceholderFiles)
	b = appendBool(append(b, 'n'), spec.Network)
	b = appendBool(append(b, 's'), spec.Seatbelt)
	l := spec.Limits
	for _, n := range []uint64{l.FileSize, l.OpenFiles, l.Processes, l.CPUTime, l.Memory} {
		b = strconv.AppendUint(append(b, 'l'), n, 10)
	}
	return b
}

func appendText(b []byte, s string) []byte {
	b = strconv.AppendInt(append(b, '['), int64(len(s)), 10)
	return append(append(b, ':'), s...)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, '1')
	}
	return append(b, '0')
}
