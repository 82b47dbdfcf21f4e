// Command maxrss runs its arguments and writes the child's peak RSS in bytes
// to stderr. It exists so that a test can measure vtexec alone: a child
// started straight from a large test binary inherits that binary's
// high-water mark through vfork and exec.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdout = os.Stdout
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	fmt.Fprintf(os.Stderr, "%d\n", ru.Maxrss*1024) // kilobytes on Linux
}
