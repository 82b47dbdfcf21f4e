//go:build linux

package confine

import (
	"errors"
	"os/exec"
	"runtime"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// As root, a program starts from a locked thread of vtexec that first
// enters the box: its mount and network namespaces, new PID and IPC
// namespaces for its children, the bounding set dropped, Landlock and the
// syscall filter (~0.2 ms, most of it the filter's install). For a
// long-lived caller that work is done ahead, in the background after a
// run, like the unprivileged helper started ahead (zygote_linux.go): a
// thread enters the box for the next program but git (or git's) and
// waits for it. It serves one program, whose PID and IPC namespaces are
// new, and ends with it, as a thread that entered when the program came
// would; the box's world it entered is the box's for its whole life (a
// changed world is another box). A program with a leader (a pipeline's
// later ones) or granted the network starts as before.

// readyThread is a locked thread that entered the box and waits for the
// one program it starts.
type readyThread struct {
	ready chan struct{} // closed once it entered the box, or failed to
	err   error         // why it could not, set before ready closes
	tid   int           // the thread, set before ready closes (for tests)
	jobs  chan *readyJob
}

// readyJob is a program for a ready thread, and where it says how its
// start went.
type readyJob struct {
	cmd     *exec.Cmd
	opts    StartOptions
	p       *boxProcess
	started chan error
}

// threadsUsed counts programs started from a thread entered ahead, for
// tests.
var threadsUsed atomic.Int64

// errNotStarted is a ready thread's answer when it could not start the
// program and nothing of it began: it starts as before.
var errNotStarted = errors.New("confine: not started from the thread entered ahead")

// keepThreadReady has a thread enter the box ahead for the next program
// but git (or git's) unless one is there.
func (b *Box) keepThreadReady(git bool) {
	b.threads.fill(git, func() (*readyThread, error) {
		t := &readyThread{ready: make(chan struct{}), jobs: make(chan *readyJob, 1)}
		go t.run(b, git)
		return t, nil
	})
}

// run enters the box on a thread of its own, then starts the program it
// is given and waits for it. The thread is never unlocked: it carries
// the restrictions and ends with this goroutine.
func (t *readyThread) run(b *Box, git bool) {
	runtime.LockOSThread()
	primePidfd()
	t.err = b.enterAsRoot(git, b.rules, false, nil, nil)
	if t.err == nil {
		t.err = restrict(b.rules)
	}
	t.tid = unix.Gettid()
	close(t.ready)
	job := <-t.jobs
	if job == nil || t.err != nil {
		return
	}
	cmd, p := job.cmd, job.p
	// The group's cgroups are joined through descriptors opened before
	// any thread restricted itself; one another vtexec removed since
	// cannot be made again from here: the program starts as before.
	if err := job.opts.Group.join(cmd); err != nil {
		job.started <- errNotStarted
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	rootAttrs(cmd.SysProcAttr, nil)
	err := cmd.Start()
	job.opts.Group.leave()
	b.awaitStarted(p, err, job.started, true)
}

// takeThread starts cmd from the box's thread entered ahead for git (or
// the others), if there is one that entered; ok is false if there is
// none, or it could not start cmd and nothing of it began.
func (b *Box) takeThread(cmd *exec.Cmd, opts StartOptions) (p *boxProcess, ok bool, err error) {
	t := b.threads.take(opts.Git)
	if t == nil {
		return nil, false, nil
	}
	<-t.ready
	if t.err != nil {
		t.jobs <- nil
		return nil, false, nil
	}
	p = &boxProcess{cmd: cmd, done: make(chan struct{})}
	job := &readyJob{cmd: cmd, opts: opts, p: p, started: make(chan error, 1)}
	t.jobs <- job
	if err := p.whenStarted(job.started); err != nil {
		if errors.Is(err, errNotStarted) {
			return nil, false, nil
		}
		return nil, true, err
	}
	threadsUsed.Add(1)
	return p, true, nil
}

// closeThreads ends the box's threads entered ahead; no more are made.
// It returns once none of them uses the box's descriptors any more (the
// ruleset, the namespaces), which the box closes next.
func (b *Box) closeThreads() {
	for _, t := range b.threads.close() {
		<-t.ready
		t.jobs <- nil
	}
}
