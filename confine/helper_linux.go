//go:build linux

package confine

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Without root, vtexec cannot make a mount namespace itself: a user
// namespace must come first, which a process with several threads (any
// Go program) cannot enter. So a program starts as a helper (where it
// cannot start directly: see directstart_linux.go): the vtexec binary
// again, cloned into fresh user, mount, PID and network
// namespaces, where it is root of its own user namespace; it covers the
// socket directories, binds the protected names read-only, restricts
// itself with Landlock, drops its capabilities and execs the program in
// place. The helper runs only when started under its own argv[0] with
// a spec in its environment; a command string cannot start vtexec.

const (
	helperArg0 = "vtexec-confine-helper"
	helperEnv  = "VTEXEC_CONFINE_HELPER_SPEC"
)

// helperSpec is what the helper is told.
type helperSpec struct {
	Spec Spec `json:"spec"`
	ABI  int  `json:"abi"`
	Git  bool `json:"git"` // the program is git: its git directories are writable
	// NetReady, when set, is a descriptor the helper waits on for a byte:
	// the program was granted the network, which vtexec connects from
	// outside once the helper has started.
	NetReady int `json:"net_ready,omitempty"`
	// CallerRoot: the caller is uid 0 in its own namespace.
	CallerRoot bool `json:"caller_root,omitempty"`
	// Zygote: the helper is started ahead of its program, which it reads
	// from descriptor 3 once confined (see zygote_linux.go).
	Zygote bool `json:"zygote,omitempty"`
}

// specFor is the box's program for git (or the others), with or
// without the network, as the helper is told it.
func (b *Box) specFor(git, network bool) helperSpec {
	spec := b.spec
	spec.Network = network
	return helperSpec{Spec: spec, ABI: b.report.Landlock, Git: git, CallerRoot: os.Geteuid() == 0}
}

// box is the box hs describes, as far as planning its mounts goes.
func (hs helperSpec) box() *Box { return &Box{spec: hs.Spec, callerRoot: hs.CallerRoot} }

func init() {
	if len(os.Args) >= 3 && os.Args[0] == helperArg0 && os.Getenv(helperEnv) != "" {
		os.Exit(helperMain(os.Args[1], os.Args[2:]))
	}
}

// asHelper rewrites cmd to start through the helper.
func asHelper(cmd *cmdLike, hs helperSpec) error {
	raw, err := json.Marshal(hs)
	if err != nil {
		return err
	}
	cmd.args = append([]string{helperArg0, cmd.path}, cmd.args...)
	cmd.path = "/proc/self/exe"
	if fd := helperProgram.Load(); fd != nil {
		cmd.path = "/proc/self/fd/" + strconv.Itoa(*fd)
	}
	cmd.env = append(cmd.env, helperEnv+"="+string(raw))
	return nil
}

// startAsHelper rewrites cmd to start through the helper told hs.
func startAsHelper(cmd *exec.Cmd, hs helperSpec) error {
	c := &cmdLike{path: cmd.Path, args: cmd.Args, env: cmd.Env}
	if err := asHelper(c, hs); err != nil {
		return err
	}
	cmd.Path, cmd.Args, cmd.Env = c.path, c.args, c.env
	return nil
}

// helperProgram is the descriptor of the file helpers start as (see
// UseHelperProgram); nil: this program itself.
var helperProgram atomic.Pointer[int]

// helperProgramFD is at least where the helper program's descriptor is
// kept: above the descriptors a helper is given (its streams, the
// zygote's socket, the network's), which are put in place before the
// exec finds the program through /proc/self/fd.
const helperProgramFD = 100

// UseHelperProgram makes helpers start as f, an executable of this
// program's own build: vtexec-serve names the vtexec beside it, which
// links less and reaches the helper's code 0.36 ms sooner. f is kept open
// for the life of the process, above helperProgramFD, and helpers are
// started through it, so a file put in its place later is not the one
// started. The caller checks that f is of its build: the helper reads a
// spec this program writes.
func UseHelperProgram(f *os.File) error {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, helperProgramFD)
	if err != nil {
		return fmt.Errorf("confine: keep the helper program: %w", err)
	}
	if old := helperProgram.Swap(&fd); old != nil {
		unix.Close(*old)
	}
	return nil
}

// cmdLike is the part of exec.Cmd the helper rewrite touches.
type cmdLike struct {
	path string
	args []string
	env  []string
}

// helperMain runs in the helper process and only returns on failure.
func helperMain(program string, argv []string) int {
	runtime.LockOSThread()
	var hs helperSpec
	fail := func(format string, args ...any) int {
		msg := fmt.Sprintf(format, args...)
		if hs.Zygote {
			// Its streams are not the program's yet: vtexec reports it.
			unix.Write(zygoteFD, []byte(msg))
		} else {
			fmt.Fprintf(os.Stderr, "vtexec: confine: %s\n", msg)
		}
		return 126
	}
	if err := json.Unmarshal([]byte(os.Getenv(helperEnv)), &hs); err != nil {
		return fail("bad helper spec: %v", err)
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, helperEnv+"=") {
			env = append(env, kv)
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail("working directory: %v", err)
	}
	b := hs.box()
	if err := b.setUpMounts(hs.Git); err != nil {
		return fail("%v", err)
	}
	// The working directory still points into the mounts as they were;
	// enter it again through the new ones, or relative paths would pass
	// under the read-only binds.
	if err := unix.Chdir(cwd); err != nil {
		return fail("working directory: %v", err)
	}
	if err := dropBoundingSet(); err != nil {
		return fail("%v", err)
	}
	// A network namespace of its own: loopback up, for the program's own
	// test servers; nothing else is there unless the program was granted
	// the network, which vtexec connects from outside.
	if err := loopbackUp(); err != nil {
		return fail("loopback: %v", err)
	}
	if hs.NetReady > 0 {
		var b [1]byte
		n, _ := unix.Read(hs.NetReady, b[:])
		unix.Close(hs.NetReady)
		if n != 1 {
			return fail("the network this command was granted could not be set up")
		}
	}
	if hs.ABI > 0 {
		rs, err := newRuleset(hs.Spec, hs.ABI, false, true)
		if err != nil {
			return fail("%v", err)
		}
		if err := rs.allowFreshRoot(); err != nil {
			return fail("%v", err)
		}
		// The box's own /dev/shm, made with the new root just now.
		if err := rs.allow(PrivateShm, writeRights(hs.ABI)); err != nil {
			return fail("%v", err)
		}
		if err := rs.restrictThread(); err != nil {
			return fail("%v", err)
		}
	} else if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fail("no_new_privs: %v", err)
	}
	if err := installSeccomp(); err != nil {
		return fail("%v", err)
	}
	if hs.Zygote {
		if _, err := unix.Write(zygoteFD, []byte{zygoteSetUp}); err != nil {
			return 126
		}
		req, err := zygoteReceive()
		if err != nil {
			return fail("zygote: %v", err)
		}
		if err := unix.Chdir(req.Dir); err != nil {
			return fail("working directory: %v", err)
		}
		// Closed when the program starts: vtexec waits for that.
		unix.CloseOnExec(zygoteFD)
		program, argv, env = req.Program, req.Argv, req.Env
	}
	// The limits last, so that they bind the program from its first
	// instruction and not the helper's own work (it copies files and
	// maps the Go runtime's memory).
	for _, r := range rlimits(hs.Spec.Limits, hs.Spec.Limits.Memory) {
		lim := unix.Rlimit{Cur: r.v, Max: r.v}
		if err := unix.Setrlimit(r.res, &lim); err != nil {
			return fail("resource limit %d: %v", r.res, err)
		}
	}
	err = unix.Exec(program, argv, env)
	fmt.Fprintf(os.Stderr, "vtexec: %s: %v\n", program, err)
	if os.IsNotExist(err) {
		return 127
	}
	return 126
}
