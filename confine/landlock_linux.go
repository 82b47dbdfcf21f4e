//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Landlock access rights vtexec uses, by the ABI that brought them.
const (
	fsRead  = ll.AccessFSReadFile | ll.AccessFSReadDir
	fsExec  = ll.AccessFSExecute
	fsWrite = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeDir |
		ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeSym
	fsABI1 = fsRead | fsExec | fsWrite | ll.AccessFSMakeChar | ll.AccessFSMakeBlock
)

// handledFS returns the filesystem rights an ABI can restrict.
func handledFS(abi int) uint64 {
	h := uint64(fsABI1)
	if abi >= 2 {
		h |= ll.AccessFSRefer
	}
	if abi >= 3 {
		h |= ll.AccessFSTruncate
	}
	if abi >= 5 {
		h |= ll.AccessFSIoctlDev
	}
	return h
}

// writeRights are the rights of a read-write directory under an ABI:
// everything but device nodes and device ioctls.
func writeRights(abi int) uint64 {
	r := uint64(fsRead | fsExec | fsWrite)
	if abi >= 2 {
		r |= ll.AccessFSRefer
	}
	if abi >= 3 {
		r |= ll.AccessFSTruncate
	}
	return r
}

var (
	abiOnce    sync.Once
	abiVersion int
)

// landlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	abiOnce.Do(func() {
		v, err := ll.LandlockGetABIVersion()
		if err == nil {
			abiVersion = v
		}
	})
	return abiVersion
}

// systemReadExec are the directories every program needs: its own
// binary, its libraries and their data.
var systemReadExec = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// systemReadFiles are the files and directories outside /usr that
// ordinary programs read: the dynamic loader's cache, users and groups
// for ls -l, the time zone, name service and locale settings, TLS roots
// for an approved network tool, what identifies the system (pip and
// platform read /etc/debian_version and os-release), Debian's Python
// settings (/etc/python3.X/sitecustomize.py), kernel facts for nproc and
// runtimes. No secret is among them.
var systemReadFiles = sync.OnceValue(func() []string {
	return append([]string{
		"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload",
		"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime", "/etc/timezone",
		"/etc/host.conf", "/etc/hosts", "/etc/resolv.conf", "/etc/gai.conf", "/etc/services", "/etc/protocols",
		"/etc/mime.types", "/etc/magic", "/etc/locale.alias", "/etc/default/locale",
		"/etc/ssl", "/etc/ca-certificates", "/etc/pki", "/etc/alternatives", "/etc/os-release",
		"/etc/debian_version", "/etc/lsb-release", "/etc/issue", "/etc/python3",
		"/sys/devices/system/cpu", "/sys/fs/cgroup",
	}, etcPythonDirs()...)
})

// etcPythonDirs are the names Debian gives each Python version's
// settings directory, /etc/python3.N: every one a Python 3 could have,
// since listing /etc to find those present costs a fresh process more
// (~80 µs) than the rules' failed opens of the missing ones (~20 µs).
func etcPythonDirs() []string {
	var dirs []string
	for minor := 0; minor < 40; minor++ {
		dirs = append(dirs, "/etc/python3."+strconv.Itoa(minor))
	}
	return dirs
}

// systemDevices are read and written like files.
var systemDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// ruleset is a Landlock ruleset being built.
type ruleset struct {
	fd  int
	abi int
	// freshRoot: made for a box with a root of its own (see newRoot),
	// whose reads are granted beneath that root.
	freshRoot bool
	// boxMounts: the box's root, its own /proc and /dev/shm granted,
	// once for the mount namespace of git and once for the others'.
	boxMounts [2]struct {
		mu      sync.Mutex
		granted bool
	}
}

// allowBoxMounts grants reading beneath the box's root, its own procfs
// and /dev/shm, as the calling thread's mount namespace (the box's, for
// git or the others) has them. The ruleset was made outside, where /proc
// is vtexec's; the box's root, its procfs (hidepid=ptraceable) and its
// /dev/shm are other mounts, which no rule covered. Each mount namespace
// has its own, and rules added once stand for every thread restricted
// after.
func (rs *ruleset) allowBoxMounts(git bool) error {
	m := &rs.boxMounts[zygoteSlot(git)]
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.granted {
		return nil
	}
	for _, r := range rs.boxMountRules() {
		if err := rs.allow(r.path, r.access); err != nil {
			return err
		}
	}
	m.granted = true
	return nil
}

// boxMountRules are the rules allowBoxMounts adds, as paths in the box's
// mount namespace and the access granted beneath each: its root and
// procfs read (freshRootRules), and beneath the box's /dev (a read-only tmpfs, so that
// only /dev/shm can be written there) written: each program's /dev/shm
// is a tmpfs of its own, and a rule on each would grow the ruleset with
// every program.
func (rs *ruleset) boxMountRules() []pathAccess {
	return append(slices.Clone(freshRootRules), pathAccess{"/dev", writeRights(rs.abi)})
}

// pathAccess is a rule: access granted beneath path.
type pathAccess struct {
	path   string
	access uint64
}

// newRuleset creates the box's ruleset: the spec's paths, the system's,
// TCP bind and connect denied if denyTCP (where no network namespace
// cuts the network already, since inside one loopback is the box's own),
// and signals and abstract sockets scoped where the ABI can. freshRoot:
// the box has a root of its own, beneath which the caller grants reading
// from inside (allowFreshRoot).
func newRuleset(spec Spec, abi int, denyTCP, freshRoot bool) (*ruleset, error) {
	rs, err := newSystemRuleset(abi, denyTCP, freshRoot)
	if err != nil {
		return nil, err
	}
	if err := rs.allowSpec(spec); err != nil {
		rs.close()
		return nil, err
	}
	return rs, nil
}

// newSystemRuleset creates a ruleset with the rules every box has (see
// systemRuleGroups); allowSpec adds a box's own.
func newSystemRuleset(abi int, denyTCP, freshRoot bool) (*ruleset, error) {
	attr := rulesetAttr(abi, denyTCP)
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return nil, fmt.Errorf("landlock: create ruleset: %w", err)
	}
	rs := &ruleset{fd: fd, abi: abi, freshRoot: freshRoot}
	if err := rs.allowGroups(systemRuleGroups(freshRoot)); err != nil {
		rs.close()
		return nil, err
	}
	return rs, nil
}

// allowFreshRoot grants reading beneath the calling thread's root and
// its /proc: a box's own, which hold only what the box may read (see
// newRoot). Directories can be listed there; their entries are the
// binds the box was given.
func (rs *ruleset) allowFreshRoot() error {
	for _, r := range freshRootRules {
		if err := rs.allow(r.path, r.access); err != nil {
			return err
		}
	}
	return nil
}

// freshRootRules are the rules of a box's own root and procfs: reading
// beneath them.
var freshRootRules = []pathAccess{{"/", fsRead}, {"/proc", fsRead}}

// allowSpec adds the rules of spec's paths.
func (rs *ruleset) allowSpec(spec Spec) error {
	return rs.allowGroups(specRuleGroups(spec, rs.abi))
}

func (rs *ruleset) allowGroups(groups []ruleGroup) error {
	for _, g := range groups {
		for _, p := range g.paths {
			if err := rs.allow(p, g.access); err != nil && !(g.optional && errors.Is(err, os.ErrNotExist)) {
				return err
			}
		}
	}
	return nil
}

// ruleGroup is paths a box's ruleset grants the same rights beneath.
type ruleGroup struct {
	paths    []string
	access   uint64
	optional bool // a path that is not there is no failure
}

// ruleGroups are the rules of a box's ruleset: the system's and the
// spec's.
func ruleGroups(spec Spec, abi int, freshRoot bool) []ruleGroup {
	return append(systemRuleGroups(freshRoot), specRuleGroups(spec, abi)...)
}

// systemRuleGroups are the rules every box has: the system's programs
// and devices, and, for a box without a root of its own, the files
// programs read and the procfs (the one the ruleset is made where). A
// box with a root of its own reads what that root holds (the same files,
// bound there), granted from inside (allowFreshRoot).
func systemRuleGroups(freshRoot bool) []ruleGroup {
	groups := []ruleGroup{
		{systemReadExec, fsRead | fsExec, true},
		{systemDevices, fsRead | ll.AccessFSWriteFile, true},
	}
	if !freshRoot {
		groups = append(groups, ruleGroup{systemReadFiles(), fsRead, true}, ruleGroup{[]string{"/proc"}, fsRead, true})
	}
	return groups
}

// specRuleGroups are the rules of the spec's paths.
func specRuleGroups(spec Spec, abi int) []ruleGroup {
	return []ruleGroup{
		{spec.ReadOnly, fsRead | fsExec, false},
		{spec.ReadWrite, writeRights(abi), false},
	}
}

// ruleAccess is access as a rule beneath fd may grant it under an ABI:
// only what it handles, and only the rights that apply to a file when fd
// is one.
func ruleAccess(fd int, access uint64, abi int) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, err
	}
	access &= handledFS(abi)
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
	}
	return access, nil
}

// rulesetAttr is what a box's ruleset handles: TCP bind and connect if
// denyTCP (where no network namespace cuts the network already), and
// signals and abstract sockets scoped where the ABI can.
func rulesetAttr(abi int, denyTCP bool) ll.RulesetAttr {
	attr := ll.RulesetAttr{HandledAccessFS: handledFS(abi)}
	if abi >= 4 && denyTCP {
		attr.HandledAccessNet = ll.AccessNetBindTCP | ll.AccessNetConnectTCP
	}
	if abi >= 6 {
		attr.Scoped = ll.ScopeAbstractUnixSocket | ll.ScopeSignal
	}
	return attr
}

// checkRulePaths fails as newRuleset would on a path of the spec that
// cannot be opened, without making a ruleset.
func checkRulePaths(spec Spec) error {
	for _, paths := range [][]string{spec.ReadOnly, spec.ReadWrite} {
		for _, p := range paths {
			fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
			if err != nil {
				return &os.PathError{Op: "landlock rule", Path: p, Err: err}
			}
			unix.Close(fd)
		}
	}
	return nil
}

// allow adds a rule granting access beneath path (only the rights that
// apply to a file, when path is one).
func (rs *ruleset) allow(path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "landlock rule", Path: path, Err: err}
	}
	defer unix.Close(fd)
	access, err = ruleAccess(fd, access, rs.abi)
	if err != nil {
		return &os.PathError{Op: "landlock rule", Path: path, Err: err}
	}
	attr := ll.PathBeneathAttr{AllowedAccess: access, ParentFd: fd}
	if err := ll.LandlockAddPathBeneathRule(rs.fd, &attr, 0); err != nil {
		return &os.PathError{Op: "landlock rule", Path: path, Err: err}
	}
	return nil
}

// restrictThread applies the ruleset to the calling thread only.
func (rs *ruleset) restrictThread() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(rs.fd, 0); err != nil {
		return fmt.Errorf("landlock: restrict: %w", err)
	}
	return nil
}

func (rs *ruleset) close() {
	if rs != nil && rs.fd >= 0 {
		unix.Close(rs.fd)
		rs.fd = -1
	}
}
