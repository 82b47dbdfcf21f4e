// Package confine runs programs inside a kernel box: the floor under
// vtexec's checks, which holds even when a validator is wrong or an
// approved tool runs code vtexec never sees.
//
// A Box is made once per request from a Spec (the directories a command
// may read, write and run) and every program of the request starts
// through it. On Linux each program is started from a goroutine locked to
// a fresh OS thread that restricts itself before the fork and exits with
// the goroutine, so vtexec's other threads stay free and the child
// inherits exactly the thread's restrictions:
//
//   - Landlock: read and execute on the system's program and library
//     directories and a few /etc files, read-write on the workspace, the
//     private HOME and TMPDIR and the extra roots, nothing else; signals
//     and abstract unix sockets scoped to the box (ABI 6); TCP bind and
//     connect denied where no network namespace can be had.
//   - no_new_privs, and as root an empty capability bounding set.
//   - A private network namespace with only a loopback device of its
//     own, shared by the boxes of one process (made once, entered with
//     setns), so a command's own test servers work and nothing else does.
//   - A PID namespace per pipeline whose first process is the pipeline's
//     last command (so upstream commands keep bash's SIGPIPE behaviour),
//     with the parent-death signal: when vtexec dies or kills that
//     process, the kernel kills everything left in the namespace,
//     daemons that called setsid included.
//   - Resource limits, applied to each process as it starts.
//
// What could not be applied is reported, never hidden: in ModeRequired a
// missing mechanism refuses to start anything; in ModeBestEffort the
// Report says what is missing and why. Other platforms report none.
package confine
