package runner

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// sparedSIGTERM reports whether SIGTERM leaves pid running where it would
// end it anywhere else: pid is the first process of a PID namespace (a
// box's first program), which the kernel spares a signal it has no
// handler for, and it neither catches nor ignores SIGTERM.
func sparedSIGTERM(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	var first bool
	var handled uint64
	for line := range bytes.Lines(b) {
		name, value, ok := bytes.Cut(bytes.TrimRight(line, "\n"), []byte(":\t"))
		if !ok {
			continue
		}
		switch string(name) {
		case "NSpid": // its pid in each namespace, the innermost last
			ids := bytes.Fields(value)
			first = len(ids) > 1 && string(ids[len(ids)-1]) == "1"
		case "SigIgn", "SigCgt":
			mask, err := strconv.ParseUint(string(value), 16, 64)
			if err != nil {
				return false
			}
			handled |= mask
		}
	}
	return first && handled&(1<<(syscall.SIGTERM-1)) == 0
}
