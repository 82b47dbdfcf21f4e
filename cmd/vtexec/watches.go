package main

import (
	"os"
	"os/exec"

	"github.com/vtexec/vtexec/internal/dirwatch"
	"github.com/vtexec/vtexec/internal/exithold"
	"github.com/vtexec/vtexec/internal/inherited"
)

// heldUntilExit is the write end of the pipe the holder of the process's
// inotify instance reads: the kernel closes it when this process exits.
var heldUntilExit *os.File

// leaveAtExit leaves what this process's exit would make its caller wait
// for to a process that outlives it by a moment: its memory's unmapping
// and its inotify instance's teardown go to a holder that shares the
// memory and runs no program (see exithold); where none can be started,
// the instance alone goes to a cat.
func leaveAtExit() {
	inst := dirwatch.Instance()
	held := exithold.Hold(inst) > 0
	if inst != nil {
		inst.Close()
	}
	if !held {
		handOffWatches()
	}
}

// handOffWatches gives the process's inotify instance, if it watched
// anything, to a cat that reads a pipe until this process has exited and
// then exits itself. The kernel frees an instance's watches when its
// last holder closes it, after a grace period of fsnotify's that the
// closing process waits for (15-20 ms here): without the hand-off a
// stream of checks or a check of a git command made its caller wait for
// that after its last answer. The cat holds nothing else (no stream of
// this process's, an empty environment) and outlives this process by
// that grace period.
func handOffWatches() *exec.Cmd {
	inst := dirwatch.Instance()
	if inst == nil {
		return nil
	}
	defer inst.Close()
	const cat = "/bin/cat"
	if _, err := os.Stat(cat); err != nil {
		return nil
	}
	// Only the instance goes to the holder: descriptors this process
	// inherited without close-on-exec (a harness's pipe) would otherwise
	// go too, and whoever waits for them to close would wait for it
	// (main marked them already; a caller of this function may not have).
	if err := inherited.CloseOnExec(); err != nil {
		return nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	defer r.Close()
	holder := &exec.Cmd{Path: cat, Args: []string{"cat"}, Env: []string{}, Dir: "/", Stdin: r, ExtraFiles: []*os.File{inst}}
	if err := holder.Start(); err != nil {
		w.Close()
		return nil
	}
	heldUntilExit = w
	return holder
}
