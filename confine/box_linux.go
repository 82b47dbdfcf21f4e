//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/vtexec/vtexec/internal/early"
	"github.com/vtexec/vtexec/internal/inherited"
	"github.com/vtexec/vtexec/internal/phase"
	"github.com/vtexec/vtexec/internal/vspawn"
)

// DefaultMode is ModeRequired where the kernel has Landlock, else
// ModeBestEffort.
func DefaultMode() Mode {
	if landlockABI() > 0 {
		return ModeRequired
	}
	return ModeBestEffort
}

// Box starts the programs of one request, confined. It is safe for
// concurrent use.
type Box struct {
	mode  Mode
	spec  Spec
	rules *ruleset // nil: no Landlock
	// netRules is the ruleset for programs granted the network, made on
	// first use.
	netRules struct {
		once sync.Once
		rs   *ruleset
		err  error
	}
	netns int // the shared network namespace, or -1
	// shared are the user and network namespaces the helpers share
	// without root (see startInUserNS).
	shared struct {
		mu        sync.RWMutex // read-held while a helper joins them
		user, net *os.File
		closed    bool
		// templates are the box's mount namespaces kept for its later
		// programs ([0] but git, [1] git; see template_linux.go),
		// building those being made.
		templates [2]*mountTemplate
		building  [2]bool
		// keeperAsked: the keeper was asked for the template for git (or
		// the others); keeperMissed: a program started without one (see
		// keeper_linux.go).
		keeperAsked, keeperMissed [2]bool
		// parked are children made ahead in copies of the templates
		// (see park_linux.go), parking those being made.
		parked  [2]atomic.Pointer[parkedChild]
		parking [2]atomic.Bool
	}
	// rootParkFailed: parking a child failed as root once; threads
	// enter ahead instead.
	rootParkFailed atomic.Bool
	root           bool // namespaces and capabilities as root
	userns         bool // unprivileged: a user namespace per process instead
	// callerRoot: in a helper, the caller was uid 0 in its own namespace
	// (a rootless container's root), who owns the system's files there.
	callerRoot bool
	report     Report

	// mounts are the box's mount namespaces, made on first use: [0] for
	// every program but git, [1] for git.
	mounts [2]struct {
		mu    sync.Mutex
		built bool
		fd    int // the namespace each program's copy is made from (see enterMountNS)
		err   error
		// keep is where a namespace just built is to be kept (see
		// persist), by a thread still in vtexec's mount namespace.
		keep string
	}
	key string // SpecKey of the box as it was opened (placeholders made)

	// zyg are helpers started ahead for the next programs (unprivileged).
	zyg ahead[zygote]
	// threads are threads that entered the box ahead for the next
	// programs (as root).
	threads ahead[readyThread]

	// pids is the box's pids cgroup, made and opened on the first
	// NewGroup and shared by every run of the box; mem its memory cgroup.
	pids struct {
		mu  sync.Mutex
		cg  *pidsCgroup
		mem *pidsCgroup
	}
}

// inheritedOnce marks the process's inherited descriptors once.
var inheritedOnce sync.Once

// Open prepares a box for spec. In ModeRequired it fails with
// ErrUnsupported when the kernel cannot confine.
func Open(spec Spec, mode Mode) (*Box, error) {
	if mode == "" {
		mode = DefaultMode()
	}
	b := &Box{mode: mode, spec: spec, netns: -1, report: Report{Mode: mode, Filesystem: "unconfined", Network: "unconfined"}}
	// What this process inherited open across exec is not its programs':
	// os/exec passes such descriptors on (vtexec's commands mark them at
	// start; a program that embeds the engine, here).
	inheritedOnce.Do(func() { inherited.CloseOnExec() })
	if mode == ModeOff {
		return b, nil
	}
	b.root = fullRoot()
	b.userns = !b.root && userNamespacesAllowed()
	// As root the workspace's cgroups are made alongside the ruleset:
	// each costs a few hundred microseconds of the kernel's time.
	var cgroups chan madeCgroups
	if b.root {
		cgroups = make(chan madeCgroups, 1)
		limits := spec.Limits
		if limits.Memory == 0 {
			limits.Memory = defaultMemory()
		}
		name := firstOr(spec.ReadWrite, "")
		go func() { cgroups <- makeCgroups(limits, name) }()
	}
	var missing []string
	abi := landlockABI()
	if abi == 0 {
		missing = append(missing, "landlock: the kernel does not support it")
	} else {
		b.report.Landlock, b.report.Filesystem = abi, "confined"
		b.report.Scoped = abi >= 6
		if abi < 6 {
			missing = append(missing, fmt.Sprintf("scoped signals and abstract sockets: Landlock ABI %d has none (6 needed)", abi))
		}
	}
	switch {
	case b.root:
		fd, err := netnsFor(firstOr(spec.ReadWrite, ""))
		if err == nil {
			b.netns, b.report.Network = fd, "denied"
		} else {
			missing = append(missing, "network namespace: "+err.Error())
		}
	case b.userns:
		b.report.Network = "denied"
	case spec.Network:
		b.report.Network = "allowed"
	}
	if b.report.Network == "denied" {
		// Granted programs get a namespace of their own, connected by
		// slirp4netns, or nothing.
		if NetworkGrantAvailable() {
			b.report.NetworkHelper = "slirp4netns"
		} else {
			missing = append(missing, "network grants: slirp4netns is not installed, so a command granted the network cannot start")
		}
		if spec.Network {
			b.report.Network = "allowed"
		}
	}
	if b.report.Network == "unconfined" && abi >= 4 {
		b.report.Network = "tcp-denied"
		missing = append(missing, "network: only TCP is denied (Landlock); UDP and other sockets are not cut without a network namespace")
	} else if b.report.Network == "unconfined" {
		missing = append(missing, "network: neither a network namespace nor Landlock TCP rules are available")
	}
	if abi > 0 && !b.userns {
		rs, err := b.openRuleset(abi)
		if err != nil {
			discardCgroups(cgroups)
			return nil, err
		}
		b.rules = rs
	} else if err := checkRulePaths(spec); err != nil {
		// Without root each program's helper builds the ruleset in its
		// own root, and without Landlock there is none: the spec's paths
		// are checked all the same, so that a missing root fails the box
		// now and not each program.
		discardCgroups(cgroups)
		return nil, err
	}
	if b.root || b.userns {
		removePlaceholders(spec)
		if spec.Placeholders || spec.PlaceholderFiles {
			if err := makePlaceholders(spec); err != nil {
				discardCgroups(cgroups)
				b.Close()
				return nil, err
			}
		}
		var absentDirs, absentFiles []string
		for _, p := range spec.Protected {
			switch _, err := os.Lstat(p.Path); {
			case err == nil:
				b.report.Protected = append(b.report.Protected, p.Path)
			case p.Dir:
				absentDirs = append(absentDirs, p.Path)
			default:
				absentFiles = append(absentFiles, p.Path)
			}
		}
		missing = append(missing, absentProtected(absentDirs, "placeholders = true in the user's policy makes empty, read-only ones for the run")...)
		missing = append(missing, absentProtected(absentFiles, "placeholder_files = true in the user's policy makes empty, read-only ones")...)
		b.report.Protected = append(b.report.Protected, spec.GitDirs...)
		b.report.SocketsHidden = true
	} else if len(spec.Protected) > 0 || len(spec.GitDirs) > 0 {
		missing = append(missing, "protected names and hidden sockets: need a mount namespace, which needs root or user namespaces")
	}
	b.key = SpecKey(spec, mode) // after the placeholders: they are part of it
	b.report.PIDNamespace = b.root || b.userns
	b.report.IPCNamespace = b.report.PIDNamespace
	b.report.SyscallFilter = seccompAvailable
	if !seccompAvailable {
		missing = append(missing, "syscall filter: none is built for this architecture")
	}
	if !b.report.PIDNamespace {
		missing = append(missing, "pid and ipc namespaces: need root or unprivileged user namespaces")
	}
	var made madeCgroups
	if cgroups != nil {
		made = <-cgroups
	}
	if b.root && spec.Limits.Processes > 0 {
		// Made at Open, not at the first run: where vtexec is root
		// without the right to make one (a container, a user namespace),
		// the box says so and runs, as when there is no pids controller.
		if made.pidsErr == nil {
			b.pids.cg = made.pids
			b.report.PidsCgroup = true
		} else {
			missing = append(missing, "process count: RLIMIT_NPROC does not bind root and no pids cgroup can be made: "+made.pidsErr.Error())
		}
	}
	if spec.Limits.Memory == 0 {
		spec.Limits.Memory = defaultMemory()
		b.spec.Limits.Memory = spec.Limits.Memory
	}
	why := "no memory cgroup without root"
	if b.root {
		if made.memErr == nil {
			b.pids.mem = made.mem
			b.report.MemoryCgroup = true
		} else {
			why = "no memory cgroup can be made: " + made.memErr.Error()
		}
	}
	if !b.report.MemoryCgroup {
		// Each process alone, then: its heap and private writable
		// mappings (RLIMIT_DATA), not reservations a runtime never uses.
		b.report.MemoryRlimit = true
		missing = append(missing, "memory: each process is bounded alone (RLIMIT_DATA), not a workspace's commands together: "+why)
	}
	if b.root {
		b.report.Capabilities = "dropped"
	} else {
		b.report.Capabilities = "none"
	}
	if l := spec.Limits; l != (Limits{}) {
		b.report.Limits = &l
	}
	b.report.Missing = missing
	if mode == ModeRequired && (abi == 0 || !b.report.PIDNamespace || b.report.Network == "unconfined") {
		b.Close()
		return nil, fmt.Errorf("%w: %s", ErrUnsupported, strings.Join(missing, "; "))
	}
	return b, nil
}

// openRuleset makes the box's ruleset.
func (b *Box) openRuleset(abi int) (*ruleset, error) {
	denyTCP := b.report.Network == "tcp-denied"
	// As root the box always has a root of its own; only Landlock
	// confines a box without root or user namespaces.
	return newRuleset(b.spec, abi, denyTCP, b.root)
}

// madeCgroups are a box's cgroups as root, or why each is not.
type madeCgroups struct {
	pids, mem       *pidsCgroup
	pidsErr, memErr error
}

// discardCgroups waits for the cgroups being made and lets them go, for an
// Open that fails.
func discardCgroups(c chan madeCgroups) {
	if c == nil {
		return
	}
	m := <-c
	for _, cg := range []*pidsCgroup{m.pids, m.mem} {
		if cg != nil {
			cg.close(true)
		}
	}
}

// makeCgroups makes (or finds) the pids cgroup (when limits bound the
// processes) and the memory cgroup of the workspace name.
func makeCgroups(limits Limits, name string) madeCgroups {
	var m madeCgroups
	if limits.Processes > 0 {
		m.pids, m.pidsErr = newPidsCgroup(limits.Processes, name)
	}
	m.mem, m.memErr = newMemoryCgroup(limits.Memory, name)
	return m
}

// NewGroup returns a group for one run's processes: as root, a pids
// cgroup bounding how many there are at once (RLIMIT_NPROC does not bind
// root). Close it once they have ended. Without root, or without a pids
// cgroup (see Report), it is nil, which groups nothing.
func (b *Box) NewGroup() (*Group, error) {
	b.pids.mu.Lock()
	defer b.pids.mu.Unlock()
	if b.pids.cg == nil && b.pids.mem == nil {
		if b.report.PidsCgroup || b.report.MemoryCgroup {
			return nil, errors.New("confine: the box is closed")
		}
		return nil, nil
	}
	return &Group{cg: b.pids.cg, mem: b.pids.mem}, nil
}

// defaultMemory is the memory bound of a workspace's commands where the
// policy sets none: half the machine's memory.
func defaultMemory() uint64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil || si.Totalram == 0 {
		return 8 << 30
	}
	return uint64(si.Totalram) * uint64(si.Unit) / 2
}

// Report says what the box applies.
func (b *Box) Report() Report {
	r := b.report
	r.Protected = append([]string(nil), r.Protected...)
	r.Missing = append([]string(nil), r.Missing...)
	return r
}

// Close releases the ruleset and the namespaces. Programs still running
// keep their confinement.
func (b *Box) Close() error { return b.close(false) }

// CloseLast is Close for the last box of the process: it also removes
// the workspace's cgroups made inside the caller's, if they are empty
// (other boxes of the process may still use them until then).
func (b *Box) CloseLast() error { return b.close(true) }

func (b *Box) close(removeCgroups bool) error {
	b.handToKeeper()
	b.closeZygotes()
	b.closeThreads()
	b.dropNamespaces()
	b.pids.mu.Lock()
	if b.pids.cg != nil {
		b.pids.cg.close(removeCgroups)
		b.pids.cg = nil
	}
	if b.pids.mem != nil {
		b.pids.mem.close(removeCgroups)
		b.pids.mem = nil
	}
	b.pids.mu.Unlock()
	b.rules.close()
	b.netRules.once.Do(func() {})
	b.netRules.rs.close()
	for i := range b.mounts {
		m := &b.mounts[i]
		m.mu.Lock()
		if m.built && m.err == nil {
			unix.Close(m.fd)
		}
		m.built, m.err = true, errors.New("confine: the box is closed")
		m.mu.Unlock()
	}
	return nil
}

// enterMountNS moves the calling, locked thread into the box's mount
// namespace for git or for the others — a copy of it of the thread's
// own, with a /dev/shm of its own (see ownShm); the first caller builds
// the namespace right there, on its own thread, and keeps a descriptor
// for the next.
func (b *Box) enterMountNS(git bool) error {
	i := 0
	if git {
		i = 1
	}
	m := &b.mounts[i]
	m.mu.Lock()
	if m.built {
		err := m.err
		if err == nil {
			err = enterMountNamespace(m.fd)
		}
		m.mu.Unlock()
		if err != nil {
			return err
		}
		return b.ownShm()
	}
	defer m.mu.Unlock()
	m.built = true
	if b.root {
		path := persistedPath(b.key, git)
		if fd, ok := openPersisted(path); ok {
			m.fd = fd
			if m.err = enterMountNamespace(fd); m.err != nil {
				unix.Close(fd)
				return m.err
			}
			return b.ownShm()
		}
		m.keep = path
	}
	mountBuilds.Add(1)
	m.fd, m.err = b.buildMountNamespace(git)
	if m.err != nil {
		m.err = fmt.Errorf("confine: %w", m.err)
		return m.err
	}
	return b.ownShm()
}

// ownShm moves the calling, locked thread, in the box's mount namespace
// (kept between boxes and processes as root), into a copy of it of its
// own, with a /dev/shm of its own over the kept one: nothing a program
// can write is kept with the namespace, and each program (a server's
// too) finds /dev/shm empty. The spec's directories under /dev/shm (a
// run's own) are bound again onto the new one.
func (b *Box) ownShm() error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("confine: unshare the mount namespace: %w", err)
	}
	under := underShm(b.spec)
	var held []int
	defer func() {
		for _, fd := range held {
			unix.Close(fd)
		}
	}()
	for _, p := range under {
		fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC|unix.O_DIRECTORY, 0)
		if err != nil {
			return fmt.Errorf("confine: keep %s: %w", p, err)
		}
		held = append(held, fd)
	}
	if err := unix.Mount("tmpfs", PrivateShm, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, privateShmOptions); err != nil {
		return fmt.Errorf("confine: mount %s: %w", PrivateShm, err)
	}
	for i, p := range under {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return err
		}
		if err := unix.Mount("/proc/thread-self/fd/"+strconv.Itoa(held[i]), p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("confine: bind %s again: %w", p, err)
		}
	}
	return nil
}

// underShm are the spec's directories under /dev/shm (a run's own),
// which a program's own /dev/shm holds again.
func underShm(spec Spec) []string {
	var under []string
	for _, p := range append(append([]string{}, spec.ReadWrite...), spec.ReadOnly...) {
		if within(p, PrivateShm) && p != PrivateShm {
			under = append(under, p)
		}
	}
	return under
}

// keepMounts keeps the mount namespaces built since it last ran; the
// caller's thread must be in vtexec's own mount namespace.
func (b *Box) keepMounts() {
	for i := range b.mounts {
		m := &b.mounts[i]
		m.mu.Lock()
		if m.keep != "" && m.built && m.err == nil {
			persist(m.fd, m.keep)
		}
		m.keep = ""
		m.mu.Unlock()
	}
}

// boxProcess is a program started from a locked thread that stays alive,
// waiting for it, so that its parent-death signal fires only when vtexec
// itself dies.
type boxProcess struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the program has exited and been waited for
	err  error         // how it exited, set before done is closed

	// waitedByCaller: the program is waited for by the first Wait, on
	// its caller's goroutine, and not by the locked thread that started
	// it, which holds on until then (see awaitStarted). Set before the
	// start is told.
	waitedByCaller bool
	waitOnce       sync.Once

	net      *grantedNet // the network of a program granted it
	netReady *os.File    // unprivileged: the helper waits for a byte here
	// direct, when set: the program starts directly (directstart_linux.go)
	// confined as the helper would be told.
	direct *helperSpec
}

// connectStarted gives the started helper of a granted program its
// network and lets it go on; without it the helper exits.
func (p *boxProcess) connectStarted() error {
	w := p.netReady
	p.netReady = nil
	defer w.Close()
	g, err := apart(func() (*grantedNet, error) { return connectPID(p.cmd.Process.Pid) })
	if err != nil {
		return err
	}
	p.net = g
	_, err = w.Write([]byte{1})
	return err
}

func (p *boxProcess) Pid() int                        { return p.cmd.Process.Pid }
func (p *boxProcess) Signal(sig syscall.Signal) error { return p.cmd.Process.Signal(sig) }
func (p *boxProcess) Wait() error {
	if p.waitedByCaller {
		p.waitOnce.Do(p.await)
	}
	<-p.done
	return p.err
}

// Start starts cmd in the box. A nil leader makes cmd the first process
// of a new pipeline: the init of a new PID namespace. Otherwise cmd joins
// leader's namespace and process group.
func (b *Box) Start(cmd *exec.Cmd, leader Process) (Process, error) {
	return b.StartWith(cmd, leader, StartOptions{})
}

// StartWith is Start with the box widened for this program by opts.
func (b *Box) StartWith(cmd *exec.Cmd, leader Process, opts StartOptions) (Process, error) {
	phase.Mark("start")
	defer phase.Mark("started")
	if b.mode == ModeOff {
		return StartDirect(cmd, leader)
	}
	var lead *boxProcess
	if leader != nil {
		var ok bool
		if lead, ok = leader.(*boxProcess); !ok {
			return nil, errors.New("confine: the leader was not started by a box")
		}
	}
	if b.userns && !b.root && opts.Group == nil && fitsAhead(cmd, b.spec.Network || opts.Network) {
		if z := b.takeZygote(opts.Git); z != nil {
			if p, err := z.launch(cmd); err == nil {
				zygotesUsed.Add(1)
				return p, nil
			}
			// Started as before, below.
		}
	}
	if b.root && lead == nil && !b.spec.Network && !opts.Network {
		if p, ok, err := b.startParkedRoot(cmd, opts); ok {
			if err != nil {
				return nil, err
			}
			b.keepMounts()
			return p, nil
		}
		if p, ok, err := b.takeThread(cmd, opts); ok {
			if err != nil {
				return nil, err
			}
			b.keepMounts() // this goroutine's thread never left vtexec's namespaces
			return p, nil
		}
		if p, ok, err := b.startRootDirect(cmd, opts); ok {
			if err != nil {
				return nil, err
			}
			return p, nil
		}
	}
	p := &boxProcess{cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		// Never unlocked: the thread carries the restrictions and ends
		// with this goroutine, once the program has been waited for.
		runtime.LockOSThread()
		err := opts.Group.join(cmd)
		if err == nil {
			err = b.enter(cmd, lead, opts, p)
			phase.Mark("entered")
			if err == nil {
				if err = b.start(cmd, b.spec.Network || opts.Network, p); err != nil && lead != nil && lead.exited() {
					err = ErrPipelineEnded
				}
			}
			opts.Group.leave()
		}
		if p.netReady != nil {
			if len(cmd.ExtraFiles) > 0 {
				cmd.ExtraFiles[len(cmd.ExtraFiles)-1].Close() // the helper's end
			}
			if err == nil {
				err = p.connectStarted()
			} else {
				p.netReady.Close()
			}
		}
		b.awaitStarted(p, err, started, lead == nil)
	}()
	if err := p.whenStarted(started); err != nil {
		return nil, err
	}
	b.keepMounts() // this goroutine's thread never left vtexec's namespaces
	return p, nil
}

// start starts p's cmd, which enter set up.
func (b *Box) start(cmd *exec.Cmd, network bool, p *boxProcess) error {
	if b.userns && !b.root {
		return b.startInUserNS(cmd, network, p.direct, p.done)
	}
	return cmd.Start()
}

// awaitStarted, on the thread that started p's program (err: how the
// start went), tells started how it went, the limits set on the program,
// and waits for it, or, with byCaller, holds the thread until the
// caller's Wait has waited for it: the thread's end would send the
// program its parent-death signal. Waited for by the caller, the
// program's exit wakes the caller's goroutine and not this locked
// thread, which would then have to wake the caller's (two threads woken
// in turn, each often on an idle CPU). Only a pipeline's first program
// is: the first of a PID namespace ends only once the namespace's other
// programs, which vtexec started, have been waited for, and the caller
// may wait for the first before them. A program that could not be
// limited is killed by the caller (see whenStarted).
func (b *Box) awaitStarted(p *boxProcess, err error, started chan<- error, byCaller bool) {
	if err == nil && p.cmd.Process != nil {
		err = b.limit(p.cmd.Process.Pid)
	}
	if !byCaller || p.cmd.Process == nil {
		started <- err
		p.await()
		return
	}
	p.waitedByCaller = true
	started <- err
	<-p.done
}

// await waits for p's program, if it started (untilExited first), and
// then closes p.done.
func (p *boxProcess) await() {
	if p.cmd.Process != nil {
		untilExited(p.cmd.Process.Pid)
		p.err = p.cmd.Wait()
	}
	p.net.close()
	close(p.done)
}

// whenStarted waits for how p's start went (see awaitStarted): a program
// that began and failed after is killed and waited for.
func (p *boxProcess) whenStarted(started <-chan error) error {
	err := <-started
	if err != nil && p.cmd.Process != nil {
		p.cmd.Process.Kill()
		p.Wait()
	}
	return err
}

// exited reports whether p's program has exited, waited for or not.
func (p *boxProcess) exited() bool {
	select {
	case <-p.done:
		return true
	default:
	}
	if !p.waitedByCaller {
		return false
	}
	// Not waited for yet: asked without reaping it. ECHILD: a Wait has
	// just reaped it.
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, p.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return errors.Is(err, unix.ECHILD) || (err == nil && info.Signo != 0)
}

// enter restricts the calling, locked thread and sets cmd up to start in
// the box's namespaces.
func (b *Box) enter(cmd *exec.Cmd, lead *boxProcess, opts StartOptions, p *boxProcess) error {
	primePidfd()
	network := b.spec.Network || opts.Network
	rules := b.rules
	if network && !b.spec.Network {
		var err error
		if rules, err = b.networkRules(); err != nil {
			return err
		}
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	attr := cmd.SysProcAttr
	attr.Setpgid = true
	switch {
	case b.root:
		rootAttrs(attr, lead)
		if err := b.enterAsRoot(opts.Git, rules, network, lead, p); err != nil {
			return err
		}
	case b.userns:
		// Unprivileged: every process starts as the helper, in user,
		// mount, PID and network namespaces of its own, where it is root
		// (mapped to the caller's ids) until it has confined itself.
		attr.Cloneflags |= unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWIPC | unix.CLONE_NEWNET
		netReady := 0
		if network {
			if !NetworkGrantAvailable() {
				return ErrNoNetworkHelper
			}
			r, w, err := os.Pipe()
			if err != nil {
				return err
			}
			cmd.ExtraFiles = append(cmd.ExtraFiles, r)
			netReady = 2 + len(cmd.ExtraFiles)
			p.netReady = w
		}
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
		attr.Pdeathsig = syscall.SIGKILL
		attr.Pgid = 0
		hs := b.specFor(opts.Git, network)
		hs.NetReady = netReady
		if directStart && netReady == 0 {
			p.direct = &hs // or as the helper, if it cannot (startInUserNS)
		} else if err := startAsHelper(cmd, hs); err != nil {
			return err
		}
		return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	default:
		attr.Pgid = 0
		if lead != nil {
			attr.Pgid = lead.Pid()
		}
	}
	return restrict(rules)
}

// rootAttrs sets what a program started as root needs of its process
// attributes: a group of its own, and a parent-death signal (a
// pipeline's later programs: the leader's group, 1 in its namespace).
func rootAttrs(attr *syscall.SysProcAttr, lead *boxProcess) {
	attr.Setpgid = true
	if lead == nil {
		attr.Pdeathsig = syscall.SIGKILL
		attr.Pgid = 0
		return
	}
	// The leader is the namespace's init: its group is 1 there. (No
	// parent-death signal: the child could not see its parent and would
	// kill itself; it dies with the leader.)
	attr.Pgid = 1
}

// enterAsRoot moves the calling, locked thread, as root, into the box's
// namespaces (enterNamespacesAsRoot), gives its children PID and IPC
// namespaces of their own (a pipeline's later programs: the leader's),
// and drops the capabilities a program could gain.
func (b *Box) enterAsRoot(git bool, rules *ruleset, network bool, lead, p *boxProcess) error {
	if err := b.enterNamespacesAsRoot(git, rules, network, p); err != nil {
		return err
	}
	if lead == nil {
		// PID and IPC namespaces of its own: System V IPC and POSIX
		// message queues made in the box are gone with it. They are made
		// here, for the thread's children, and not by the clone: the
		// syscall filter refuses a clone that makes namespaces.
		if err := unix.Unshare(unix.CLONE_NEWPID | unix.CLONE_NEWIPC); err != nil {
			return fmt.Errorf("confine: pid and ipc namespaces: %w", err)
		}
	} else {
		if err := joinPIDNamespace(lead.Pid()); err != nil {
			if lead.exited() {
				return ErrPipelineEnded
			}
			return err
		}
		if err := joinNamespace(lead.Pid(), "ipc", unix.CLONE_NEWIPC); err != nil {
			if lead.exited() {
				return ErrPipelineEnded
			}
			return err
		}
	}
	return dropBoundingSet()
}

// enterNamespacesAsRoot moves the calling, locked thread, as root, into
// the box's mount namespace for git (or the others), with rules granting
// its own mounts, and into its network namespace (or, with network, a
// granted one, p's).
func (b *Box) enterNamespacesAsRoot(git bool, rules *ruleset, network bool, p *boxProcess) error {
	if err := b.enterMountNS(git); err != nil {
		return err
	}
	if rules != nil {
		if err := rules.allowBoxMounts(git); err != nil {
			return err
		}
	}
	if network && b.netns >= 0 {
		g, err := apart(newGrantedNetns)
		if err != nil {
			return err
		}
		p.net = g
		if err := unix.Setns(int(g.ns.Fd()), unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("confine: enter the granted network namespace: %w", err)
		}
	} else if b.netns >= 0 {
		if err := unix.Setns(b.netns, unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("confine: enter the network namespace: %w", err)
		}
	}
	return nil
}

// restrict restricts the calling, locked thread with rules (or, without
// Landlock, keeps it from gaining privileges) and the syscall filter.
func restrict(rules *ruleset) error {
	if err := restrictFiles(rules); err != nil {
		return err
	}
	return installSeccomp()
}

// restrictFiles restricts the calling, locked thread with rules, or
// without Landlock keeps it from gaining privileges.
func restrictFiles(rules *ruleset) error {
	if rules != nil {
		return rules.restrictThread()
	}
	return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
}

// networkRules returns the ruleset of a program granted the network: the
// box's, with TCP left alone.
func (b *Box) networkRules() (*ruleset, error) {
	if b.report.Network != "tcp-denied" {
		return b.rules, nil // the box's leaves TCP alone already
	}
	n := &b.netRules
	n.once.Do(func() {
		if b.rules != nil {
			n.rs, n.err = newRuleset(b.spec, b.rules.abi, false, b.rules.freshRoot)
		}
	})
	return n.rs, n.err
}

// Key is SpecKey of the box as Open made it, placeholders included: what
// a cache of boxes files it under.
func (b *Box) Key() string { return b.key }

// primePidfd makes Go check, once, whether pidfds work, which it does by
// starting a child that exits at once. It must not happen first in the
// box's PID namespace, made for the thread's children: that child would
// be the namespace's init, and its exit would end the namespace.
var primePidfd = sync.OnceFunc(func() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Release()
	}
})

// joinNamespace moves the calling thread into the namespace kind (ipc,
// net…) of process pid.
func joinNamespace(pid int, kind string, flag int) error {
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/ns/"+kind, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("confine: open the pipeline's %s namespace: %w", kind, err)
	}
	defer unix.Close(fd)
	if err := unix.Setns(fd, flag); err != nil {
		return fmt.Errorf("confine: join the pipeline's %s namespace: %w", kind, err)
	}
	return nil
}

// joinPIDNamespace makes the calling thread's children start in the
// PID namespace of process pid.
func joinPIDNamespace(pid int) error {
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/ns/pid", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("confine: open the pipeline's PID namespace: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Setns(fd, unix.CLONE_NEWPID); err != nil {
		return fmt.Errorf("confine: join the pipeline's PID namespace: %w", err)
	}
	return nil
}

var (
	lastCapOnce sync.Once
	lastCap     = 40
)

// lastCapability is the kernel's highest capability number.
func lastCapability() int {
	lastCapOnce.Do(func() {
		if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				lastCap = n
			}
		}
	})
	return lastCap
}

// dropBoundingSet empties the calling thread's capability bounding set,
// so that a program it starts as root holds no capability.
func dropBoundingSet() error {
	for c := 0; c <= lastCapability(); c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("confine: drop capability %d: %w", c, err)
		}
	}
	return nil
}

// limit sets the spec's resource limits on a started process.
func (b *Box) limit(pid int) error {
	if b.userns {
		return nil // the helper sets them before its exec
	}
	for _, r := range rlimits(b.spec.Limits, b.dataLimit()) {
		lim := unix.Rlimit{Cur: r.v, Max: r.v}
		if err := unix.Prlimit(pid, r.res, &lim, nil); err != nil {
			return fmt.Errorf("confine: resource limit %d: %w", r.res, err)
		}
	}
	return nil
}

// rlimit is one resource limit to set.
type rlimit struct {
	res int
	v   uint64
}

// rlimits are the resource limits of l that are set, with RLIMIT_DATA
// at data where that is not 0.
func rlimits(l Limits, data uint64) []rlimit {
	var out []rlimit
	for _, r := range []rlimit{{unix.RLIMIT_FSIZE, l.FileSize}, {unix.RLIMIT_NOFILE, l.OpenFiles},
		{unix.RLIMIT_NPROC, l.Processes}, {unix.RLIMIT_CPU, l.CPUTime}, {unix.RLIMIT_DATA, data}} {
		if r.v != 0 {
			out = append(out, r)
		}
	}
	return out
}

// dataLimit is the RLIMIT_DATA a program of the box gets as root: the
// memory limit where it is enforced that way, else none.
func (b *Box) dataLimit() uint64 {
	if b.report.MemoryRlimit {
		return b.spec.Limits.Memory
	}
	return 0
}

// spawnRlimits are rlimits(l, data) as a vspawn child sets them.
func spawnRlimits(l Limits, data uint64) []vspawn.Rlimit {
	var out []vspawn.Rlimit
	for _, r := range rlimits(l, data) {
		out = append(out, vspawn.Rlimit{Resource: r.res, Cur: r.v, Max: r.v})
	}
	return out
}

// Warm starts, in the background, Go's one check of pidfds and getting
// the network namespace of the workspace at root, so a caller that will
// open a box can overlap them with its own work. The box waits for them.
func Warm(root string) {
	go primePidfd()
	if fullRoot() {
		go netnsFor(root)
	}
}

// WarmOnce is Warm for a process that opens one box: without root it
// also makes the namespaces its programs will share (PrepareNamespaces).
func WarmOnce(root string) {
	Warm(root)
	prepareNamespaces(root)
}

// PrepareNamespaces begins to make, in the background, the user and
// network namespaces the programs of a process's one box will share
// without root, where they start directly (see startInUserNS): ~1 ms,
// most of it the network namespace's, which a fresh run waited for. A
// process that will run a command calls it as early as it can; one that
// runs nothing only lets them go as it exits. They are made once the
// workspace is known (WarmOnce), whose keeper may hold them already, or
// once a program is about to start. As root it does nothing.
func PrepareNamespaces() {
	if !directStart || fullRoot() {
		return
	}
	preparedNS.once.Do(func() {
		preparedNS.rootKnown = make(chan struct{})
		preparedNS.work = early.Start(func() madeNamespaces {
			var m madeNamespaces
			// The workspace's keeper may have them made already: asked
			// once the workspace is known (WarmOnce), or not at all if a
			// program is about to start before (rootUnknown).
			<-preparedNS.rootKnown
			if preparedNS.keeper != nil {
				if d := preparedNS.keeper.Get(); d.user != nil {
					m.user, m.net = d.user, d.net
					return m
				}
			}
			if userNamespacesAllowed() {
				// Its loopback up there, off the first program's path:
				// bringing it up costs a quarter of a millisecond.
				up := &vspawn.Calls{}
				if addLoopbackUp(up) == nil {
					m.user, m.net, _ = vspawn.Namespaces(os.Getuid(), os.Getgid(), up)
				}
			}
			return m
		})
	})
}

// prepareNamespaces is PrepareNamespaces for the one box of a process,
// of the workspace root, whose keeper is asked for the namespaces.
func prepareNamespaces(root string) {
	PrepareNamespaces()
	if preparedNS.rootKnown == nil || !preparedNS.rootSet.CompareAndSwap(false, true) {
		return
	}
	if path := keeperSocket(root); path != "" {
		preparedNS.keeper = early.Start(func() keeperDialed { return dialKeeperOf(root, path) })
	}
	close(preparedNS.rootKnown)
}

// rootUnknown lets the namespaces made ahead be made without asking a
// keeper, where the workspace was not told before a program starts.
func rootUnknown() {
	if preparedNS.rootKnown != nil && preparedNS.rootSet.CompareAndSwap(false, true) {
		close(preparedNS.rootKnown)
	}
}

// netnsEntry is the network namespace of one workspace, got once per
// process.
type netnsEntry struct {
	once sync.Once
	fd   int
	err  error
}

var netnsByRoot sync.Map // workspace root -> *netnsEntry

// netnsFor returns the network namespace of the workspace at root: only
// a loopback device, shared by the boxes of that workspace, so a test
// server one command starts is reachable by the next and by nothing of
// another workspace. As root it is kept between processes (see
// persist_linux.go); making one costs ~0.5 ms, and a fresh one per
// program would cost that per start.
func netnsFor(root string) (int, error) {
	v, _ := netnsByRoot.LoadOrStore(root, &netnsEntry{fd: -1})
	e := v.(*netnsEntry)
	e.once.Do(func() {
		path := persistedNetns(root)
		if fd, ok := openPersisted(path); ok {
			e.fd = fd
			return
		}
		if e.fd, e.err = newLoopbackNetns(); e.err == nil {
			persist(e.fd, path)
		}
	})
	return e.fd, e.err
}

// newLoopbackNetns makes a network namespace with its loopback up and
// returns a descriptor of it. A thread of its own enters it, and ends
// with the goroutine: no thread of vtexec's is left in it.
func newLoopbackNetns() (int, error) {
	type made struct {
		fd  int
		err error
	}
	ch := make(chan made, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread leaves vtexec's namespace
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			ch <- made{-1, err}
			return
		}
		fd, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err == nil {
			if err = loopbackUp(); err != nil {
				unix.Close(fd)
				fd = -1
			}
		}
		ch <- made{fd, err}
	}()
	m := <-ch
	return m.fd, m.err
}

// loopbackUp brings up lo in the calling thread's network namespace, so
// tests that serve on 127.0.0.1 work inside the box.
func loopbackUp() error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr)
}

var (
	usernsOnce sync.Once
	usernsOK   bool
)

// userNamespacesAllowed reports whether an unprivileged process may
// create a user namespace here.
func userNamespacesAllowed() bool {
	usernsOnce.Do(func() {
		if b, err := os.ReadFile("/proc/sys/kernel/unprivileged_userns_clone"); err == nil && strings.TrimSpace(string(b)) == "0" {
			return
		}
		if b, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err == nil && strings.TrimSpace(string(b)) == "0" {
			return
		}
		usernsOK = true
	})
	return usernsOK
}

// fullRoot reports whether vtexec can build a box as root: uid 0 in the
// initial user namespace, holding CAP_SYS_ADMIN. Root of a user namespace
// (a rootless container) cannot mount a procfs for the PID namespace it
// is in, nor make a pids cgroup; root without CAP_SYS_ADMIN (a container)
// cannot make namespaces. Both confine as a user who is not root does.
var fullRoot = sync.OnceValue(func() bool {
	if os.Geteuid() != 0 {
		return false
	}
	uidMap, err := os.ReadFile("/proc/self/uid_map")
	if err != nil || strings.Join(strings.Fields(string(uidMap)), " ") != "0 0 4294967295" {
		return false
	}
	// capget, not /proc/self/status: the kernel makes all of status
	// (memory figures included) to be read.
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var caps [2]unix.CapUserData
	if err := unix.Capget(&hdr, &caps[0]); err != nil {
		return false
	}
	return caps[unix.CAP_SYS_ADMIN/32].Effective&(1<<(unix.CAP_SYS_ADMIN%32)) != 0
})

func firstOr(list []string, def string) string {
	if len(list) > 0 {
		return list[0]
	}
	return def
}

// absentProtected is the report's one entry for the protected names of a
// kind that do not exist: one entry, not one per name, so that every
// answer does not repeat the same sentence for each.
func absentProtected(paths []string, optIn string) []string {
	if len(paths) == 0 {
		return nil
	}
	return []string{"protected names that do not exist (" + strings.Join(paths, ", ") +
		"): kept only after the run: what a command makes there is moved out of the workspace when the run ends (" + optIn + ")"}
}
