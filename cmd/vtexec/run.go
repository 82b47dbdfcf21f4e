package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/vtexec/vtexec"
)

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("run")
	wsDir := fs.String("workspace", ".", "workspace root")
	cwd := fs.String("cwd", "", "directory the command starts in")
	timeout := fs.Duration("timeout", vtexec.DefaultTimeout, "kill the command after this long")
	maxOut := fs.String("max-output", "64KiB", "bytes of each stream to keep (head and tail)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if *timeout <= 0 {
		return 0, &usageError{"--timeout must be positive"}
	}
	limit, err := parseSize(*maxOut)
	if err != nil {
		return 0, &usageError{"--max-output: " + err.Error()}
	}
	req, err := commandRequest(fs.Args())
	if err != nil {
		return 0, err
	}
	req.Workspace, req.Cwd, req.Timeout, req.MaxOutput = *wsDir, *cwd, *timeout, limit
	res, err := vtexec.Run(ctx, req)
	if err != nil {
		return 0, err
	}
	if *asJSON {
		if err := encodeJSON(stdout, res); err != nil {
			return 0, err
		}
		return res.ExitCode, nil
	}
	if !res.Decision.Allowed() {
		d := res.Decision
		fmt.Fprintf(stderr, "vtexec: %s %s: %s (hint: %s)\n", d.Decision, d.Code, d.Reason, d.Hint)
		return vtexec.ExitRefused, nil
	}
	io.WriteString(stdout, res.Stdout)
	io.WriteString(stderr, res.Stderr)
	if res.TimedOut {
		fmt.Fprintf(stderr, "vtexec: timed out after %s\n", time.Duration(res.DurationMs)*time.Millisecond)
	}
	return res.ExitCode, nil
}

// parseSize reads a byte count: 65536, 64K, 64KiB, 1M, 1MiB.
func parseSize(s string) (int, error) {
	units := []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	mult := 1
	num := s
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 || n > (1<<31)/mult {
		return 0, fmt.Errorf("%q is not a size like 65536, 64KiB or 1MiB", s)
	}
	return n * mult, nil
}
