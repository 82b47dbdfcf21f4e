package vspawn

import (
	"fmt"
	"slices"
	"syscall"
	"unsafe"
)

// op is one system call of the child's list (see spawn).
type op struct {
	nr       uintptr
	a        [6]uintptr
	refArg   int64
	refSrc   int64
	optional int64 // 1: any failure is none; 2: a clone; 3: a store (see StoreResult); 4: a load; < 0: that errno is no failure
	res      int64
}

const (
	optionalAny   = 1
	optionalClone = 2
	opStore       = 3
	opLoad        = 4
)

// Calls are system calls of the caller's choosing that the child makes
// once it is in its namespaces (its ids mapped, its process group and
// parent-death signal set) and before its descriptors are placed: the
// setup of a sandbox, say. The first that fails ends the child, and
// Start's error names it. Memory a call's arguments point to must be
// kept with Keep (String keeps its own).
type Calls struct {
	ops   []op
	names []string
	keep  []any
	err   error // a string that cannot be an argument: Start fails with it
}

// Add adds a call of system call nr and returns its index.
func (c *Calls) Add(name string, nr uintptr, args ...uintptr) int {
	o := op{nr: nr, refArg: -1}
	copy(o.a[:], args)
	c.ops = append(c.ops, o)
	c.names = append(c.names, name)
	return len(c.ops) - 1
}

// Grow makes room for n more calls.
func (c *Calls) Grow(n int) {
	c.ops = slices.Grow(c.ops, n)
	c.names = slices.Grow(c.names, n)
}

// Len is the number of calls.
func (c *Calls) Len() int { return len(c.ops) }

// String returns s as a NUL-terminated string for an argument; one that
// holds a NUL makes Start fail.
func (c *Calls) String(s string) uintptr {
	p, err := syscall.BytePtrFromString(s)
	if err != nil {
		if c.err == nil {
			c.err = fmt.Errorf("vspawn: %q: %w", s, err)
		}
		return 0
	}
	c.keep = append(c.keep, p)
	return uintptr(unsafe.Pointer(p))
}

// Keep keeps v, which an argument points into, until the child has
// executed its program.
func (c *Calls) Keep(v any) { c.keep = append(c.keep, v) }

// UseResult makes argument arg of call i the result of the earlier call
// src (a descriptor it opened, say).
func (c *Calls) UseResult(i, arg, src int) {
	if src >= i || arg < 0 || arg >= 6 {
		panic("vspawn: UseResult of a later call")
	}
	c.ops[i].refArg, c.ops[i].refSrc = int64(arg), int64(src)
}

// Allow makes errno no failure of call i.
func (c *Calls) Allow(i int, errno syscall.Errno) {
	if errno <= 0 || errno >= 4096 {
		panic("vspawn: Allow of no errno")
	}
	c.ops[i].optional = -int64(errno)
}

// StoreResult adds a step that writes the result of the earlier call
// src, as 32 bits, at dst (a descriptor into a structure a later call
// reads); the caller keeps dst.
func (c *Calls) StoreResult(dst *int32, src int) {
	i := c.Add("store", 0, uintptr(unsafe.Pointer(dst)))
	if src >= i {
		panic("vspawn: StoreResult of a later call")
	}
	c.ops[i].optional, c.ops[i].refSrc = opStore, int64(src)
}

// Rlimit is a resource limit the child sets on itself last, before its
// exec (prlimit64: Cur and Max).
type Rlimit struct {
	Resource int
	Cur, Max uint64
}
