package hook

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/internal/fsutil"
)

// A harness can skip a hook without a word (Gemini CLI skips project
// hooks in an untrusted folder, Codex hooks nobody reviewed). So the hook
// notes each event it answers, and `vtexec hook test` says whether the
// hook is installed and when a harness last ran it.

// sighting is the last event a harness sent.
type sighting struct {
	Time    time.Time `json:"time"`
	Tool    string    `json:"tool"`
	Cwd     string    `json:"cwd"`
	Session string    `json:"session,omitempty"`
}

func sightingFile(h Harness) (string, error) {
	dir, err := vtexec.StateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "hooks", string(h)+".json"), nil
}

// noteSighting records ev; a failure only costs the note, and so would
// a crash: it is not synced to disk, which would cost every tool call.
func noteSighting(ev Event) {
	path, err := sightingFile(ev.Harness)
	if err != nil || os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	data, _ := json.Marshal(sighting{Time: time.Now().UTC(), Tool: ev.ToolName, Cwd: ev.Cwd, Session: ev.SessionID})
	fsutil.WriteAtomicNoSync(path, append(data, '\n'), 0o600)
}

// mainTest is `vtexec hook test --harness H [--workspace DIR]`.
func mainTest(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("hook test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	harness := fs.String("harness", "", "claude, codex or gemini")
	dir := fs.String("workspace", ".", "the project, whose settings are looked at too")
	if code, done := parseFlags(fs, args, "vtexec hook test --harness claude|codex|gemini [--workspace DIR]", stdout, stderr); done {
		return code
	}
	h := Harness(*harness)
	var files []string
	switch h {
	case Claude, Gemini:
		abs, _ := filepath.Abs(*dir)
		for _, scope := range []string{"user", "project"} {
			if f, err := settingsFile(h, scope, abs, getenv("HOME")); err == nil {
				files = append(files, f)
			}
		}
	case Codex:
		home := getenv("CODEX_HOME")
		if home == "" {
			home = filepath.Join(getenv("HOME"), ".codex")
		}
		files = append(files, filepath.Join(home, "config.toml"))
	default:
		fmt.Fprintf(stderr, "vtexec hook: --harness must be claude, codex or gemini, not %q\n", h)
		return 2
	}
	installed := ""
	for _, f := range files {
		if data, _, err := fsutil.ReadRegular(f, 1<<20, true); err == nil && strings.Contains(string(data), "hook --harness "+string(h)) {
			installed = f
			break
		}
	}
	if installed == "" {
		fmt.Fprintf(stdout, "not installed: no vtexec hook for %s in %s\n  run: vtexec hook install --harness %s\n", h, strings.Join(files, " or "), h)
	} else {
		fmt.Fprintf(stdout, "installed in %s\n", installed)
	}
	seen := false
	if path, err := sightingFile(h); err == nil {
		if data, _, err := fsutil.ReadRegular(path, 1<<16, false); err == nil {
			var s sighting
			if json.Unmarshal(data, &s) == nil {
				seen = true
				fmt.Fprintf(stdout, "last event from %s: %s ago (%s), tool %s, in %s\n", h,
					time.Since(s.Time).Round(time.Second), s.Time.Format(time.RFC3339), s.Tool, s.Cwd)
			}
		}
	}
	if !seen {
		fmt.Fprintf(stdout, "no event from %s seen yet: start it in the project, let it use a tool, then run this again\n", h)
		switch h {
		case Gemini:
			fmt.Fprintln(stdout, "  Gemini CLI runs a project's hooks only in a trusted folder (GEMINI_CLI_TRUST_WORKSPACE=true, or trust it when asked); user settings hooks always run")
		case Codex:
			fmt.Fprintln(stdout, "  Codex skips hooks nobody has reviewed: review them in Codex (or run it with --dangerously-bypass-hook-trust)")
		}
	}
	if installed == "" || !seen {
		return 1
	}
	return 0
}
