//go:build linux

package confine

import (
	"os"
	"runtime"
	"testing"
)

// The package's tests run on goroutines of their own; a start that needs
// the process's main thread (rootdirect_linux.go) is made there by
// onMainThreadDo, which TestMain serves.
func init() { runtime.LockOSThread() } // TestMain stays on the main thread

var mainThreadCalls = make(chan func())

func TestMain(m *testing.M) {
	if os.Getenv(directHolderEnv) != "" {
		os.Exit(directHolder())
	}
	code := make(chan int)
	go func() { code <- m.Run() }()
	for {
		select {
		case f := <-mainThreadCalls:
			f()
		case c := <-code:
			os.Exit(c)
		}
	}
}

// onMainThreadDo runs f on the process's main thread and waits for it. f
// must not end its goroutine (no require, no t.FailNow).
func onMainThreadDo(f func()) {
	done := make(chan struct{})
	mainThreadCalls <- func() {
		defer close(done)
		f()
	}
	<-done
}
