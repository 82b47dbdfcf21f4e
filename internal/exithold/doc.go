// Package exithold lets a process that is about to exit leave the
// freeing of its memory, and of a descriptor it names, to a process that
// outlives it by a moment, so that whoever waits for the exit does not
// wait for that.
//
// When a process exits, the kernel unmaps its memory before it tells the
// parent: for a fresh vtexec, ~0.5 ms of every call, most of it the
// binary's pages the process touched (4.8 MB of code and 4.1 MB of
// read-only data in a `check`). And the last holder of an inotify
// instance that had watches waits, as it closes it, for an SRCU grace
// period of fsnotify's (15-20 ms here).
//
// Hold clones the calling process without a new program: the clone
// shares the memory (CLONE_VM), so the exit's unmapping is left to it,
// and a copy of the descriptors, of which it keeps only the one named
// and a pipe. It runs no Go code: a few system calls in assembly, on a
// stack of its own, with every signal blocked. It moves to /, closes
// every other descriptor (the caller's streams among them, which would
// keep whoever reads them waiting), reads the pipe until this process's
// end is closed — by the kernel, as this process exits — and exits.
package exithold
