//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"unsafe"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/vtexec/vtexec/internal/vspawn"
)

// Without root, a program's helper (helper_linux.go) is a second start
// of the vtexec binary: a Go runtime started, and torn down again at its
// exec of the program, for the sake of some hundred system calls. Where
// vspawn is available, vtexec's child makes those calls itself, in the
// same order, before it executes the program: a direct start. The mount
// plan is the one the helper makes (planMounts), made here, where the
// machine's file system is seen as the helper sees it before its first
// mount. Landlock's rules are opened here as well, and the child inherits
// the descriptors: a rule holds the inode, which the box's binds show
// at the same path; only the box's own procfs and /dev/shm, which exist
// once the child has mounted them, are opened by the child. A program
// granted the network still starts as the helper (it waits for vtexec to
// connect it), and so does every program where vspawn is not.

// directStart is whether programs start directly where they can (tests
// turn it off to compare with the helper).
var directStart = vspawn.Available

// directStarts counts programs started directly, for tests.
var directStarts atomic.Int64

// directSetup is the calls vtexec's child makes to confine itself as
// the helper told hs would, and the limits it sets last. done closes
// the descriptors opened for it, once the child has executed its
// program or failed.
func directSetup(hs helperSpec) (calls *vspawn.Calls, limits []vspawn.Rlimit, done func(), err error) {
	if hs.NetReady > 0 || hs.Zygote {
		return nil, nil, nil, errors.New("confine: a direct start has no network to wait for and no later program")
	}
	b := hs.box()
	plan, absent, err := b.planMountsNoting(hs.Git)
	if err != nil {
		return nil, nil, nil, err
	}
	c := &vspawn.Calls{}
	// The plan's calls, the bounding set's, Landlock's and a few more.
	c.Grow(len(plan) + maxCapabilities + 64)
	if err := addMountCalls(c, plan); err != nil {
		return nil, nil, nil, err
	}
	return confineCalls(c, hs, absent)
}

// addMountCalls adds the calls of a mount plan.
func addMountCalls(c *vspawn.Calls, plan mountPlan) error {
	for _, s := range plan {
		var i int
		switch s.op {
		case opMount:
			src, fs, data := uintptr(0), uintptr(0), uintptr(0)
			if s.src != "" {
				src = c.String(s.src)
			}
			if s.fs != "" {
				fs = c.String(s.fs)
			}
			if s.data != "" {
				data = c.String(s.data)
			}
			i = c.Add(s.what, unix.SYS_MOUNT, src, c.String(s.dst), fs, s.flags, data)
		case opMkdir:
			i = c.Add(s.what, unix.SYS_MKDIRAT, atFDCWD, c.String(s.dst), uintptr(s.mode))
		case opMknod:
			i = c.Add(s.what, unix.SYS_MKNODAT, atFDCWD, c.String(s.dst), uintptr(s.mode), 0)
		case opSymlink:
			i = c.Add(s.what, unix.SYS_SYMLINKAT, c.String(s.src), atFDCWD, c.String(s.dst))
		case opPivotRoot:
			i = c.Add(s.what, unix.SYS_PIVOT_ROOT, c.String(s.src), c.String(s.dst))
		case opChdir:
			i = c.Add(s.what, unix.SYS_CHDIR, c.String(s.dst))
		case opUnmount:
			i = c.Add(s.what, unix.SYS_UMOUNT2, c.String(s.dst), s.flags)
		default:
			return fmt.Errorf("confine: mount step %d", s.op)
		}
		if s.allow != 0 {
			c.Allow(i, s.allow)
		}
	}
	return nil
}

// confineCalls adds to c, the child's calls once its mount namespace is
// set up, the rest of what confines it as the helper hs: the bounding
// set, loopback, Landlock (absent: the system's paths the plan found
// missing), the syscall filter; and returns the limits it sets last.
func confineCalls(c *vspawn.Calls, hs helperSpec, absent map[string]bool) (calls *vspawn.Calls, limits []vspawn.Rlimit, done func(), err error) {
	var opened []int
	done = func() {
		for _, fd := range opened {
			unix.Close(fd)
		}
	}
	addDropBoundingSet(c)
	// In namespaces made ahead the loopback is up already, and bringing
	// it up again changes nothing.
	if err := addLoopbackUp(c); err != nil {
		return nil, nil, nil, err
	}
	if hs.ABI > 0 {
		if err := directLandlock(c, hs.Spec, hs.ABI, absent, &opened); err != nil {
			done()
			return nil, nil, nil, err
		}
	} else {
		c.Add("no_new_privs", unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	}
	addSeccomp(c)
	return c, spawnRlimits(hs.Spec.Limits, hs.Spec.Limits.Memory), done, nil
}

// addDropBoundingSet adds the calls that drop every capability a kernel
// can have from the bounding set (EINVAL: one it has not), as reading
// cap_last_cap costs more.
func addDropBoundingSet(c *vspawn.Calls) {
	for capability := range maxCapabilities {
		i := c.Add("drop a capability from the bounding set", unix.SYS_PRCTL, unix.PR_CAPBSET_DROP, uintptr(capability))
		c.Allow(i, unix.EINVAL)
	}
}

// addLoopbackUp adds the calls that bring up lo in the child's network
// namespace, as loopbackUp does: its flags in a new namespace are
// IFF_LOOPBACK alone, and those no ioctl changes are kept.
func addLoopbackUp(c *vspawn.Calls) error {
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	ifr.SetUint16(unix.IFF_UP | unix.IFF_LOOPBACK)
	c.Keep(ifr)
	sock := c.Add("loopback: socket", unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	up := c.Add("loopback: up", unix.SYS_IOCTL, 0, unix.SIOCSIFFLAGS, uintptr(unsafe.Pointer(ifr)))
	c.UseResult(up, 0, sock)
	closeSock := c.Add("loopback: close", unix.SYS_CLOSE, 0)
	c.UseResult(closeSock, 0, sock)
	return nil
}

// addSeccomp adds the call that installs the syscall filter, where one
// is built.
func addSeccomp(c *vspawn.Calls) {
	if prog := seccompProgram(); prog != nil {
		c.Keep(prog)
		c.Add("seccomp", unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(prog)))
	}
}

// maxCapabilities bounds the capability numbers a kernel can have (the
// bounding set is a 64-bit mask).
const maxCapabilities = 64

// atFDCWD is AT_FDCWD as a system call's argument.
const atFDCWD = ^uintptr(99) // -100

// landlockRule is the kernel's struct landlock_path_beneath_attr
// (packed: 12 bytes).
type landlockRule struct {
	access uint64
	fd     int32
	_      int32
}

// addOwnRule adds the calls that open r's path in the child (a mount of
// its own, which exists once the child has made it), add the rule with
// addRule and close the path again.
func addOwnRule(c *vspawn.Calls, r pathAccess, abi int, addRule func(name string, rule *landlockRule) int) {
	open := c.Add("landlock rule: open "+r.path, unix.SYS_OPENAT, atFDCWD, c.String(r.path), unix.O_PATH|unix.O_CLOEXEC|unix.O_DIRECTORY)
	rule := &landlockRule{access: r.access & handledFS(abi)}
	c.StoreResult(&rule.fd, open)
	addRule(r.path, rule)
	closeIt := c.Add("landlock rule: close "+r.path, unix.SYS_CLOSE, 0)
	c.UseResult(closeIt, 0, open)
}

// directLandlock adds the calls that make the box's ruleset, as
// newRuleset makes it in the helper, and restrict the child with it.
// The rules' paths are opened here (opened lists them); the box's root,
// its own procfs and /dev/shm by the child.
func directLandlock(c *vspawn.Calls, spec Spec, abi int, absent map[string]bool, opened *[]int) error {
	attr := rulesetAttr(abi, false)
	c.Keep(&attr)
	rs := c.Add("landlock: create ruleset", unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	addRule := func(name string, rule *landlockRule) int {
		c.Keep(rule)
		i := c.Add("landlock rule "+name, unix.SYS_LANDLOCK_ADD_RULE, 0, ll.RuleTypePathBeneath, uintptr(unsafe.Pointer(rule)), 0)
		c.UseResult(i, 0, rs)
		return i
	}
	for _, g := range ruleGroups(spec, abi, true) {
		for _, p := range g.paths {
			if g.optional && absent[p] {
				continue // not there
			}
			fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
			if err != nil {
				if g.optional && errors.Is(err, unix.ENOENT) {
					continue
				}
				return &os.PathError{Op: "landlock rule", Path: p, Err: err}
			}
			*opened = append(*opened, fd)
			access, err := ruleAccess(fd, g.access, abi)
			if err != nil {
				return &os.PathError{Op: "landlock rule", Path: p, Err: err}
			}
			addRule(p, &landlockRule{access: access, fd: int32(fd)})
		}
	}
	for _, own := range append(slices.Clone(freshRootRules), pathAccess{PrivateShm, writeRights(abi)}) {
		addOwnRule(c, own, abi, addRule)
	}
	c.Add("no_new_privs", unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	restrict := c.Add("landlock: restrict", unix.SYS_LANDLOCK_RESTRICT_SELF, 0, 0)
	c.UseResult(restrict, 0, rs)
	closeRS := c.Add("landlock: close the ruleset", unix.SYS_CLOSE, 0)
	c.UseResult(closeRS, 0, rs)
	return nil
}
