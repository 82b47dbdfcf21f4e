package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/vtexec/vtexec/internal/fsutil"
)

// settingsFile is where h keeps its hooks for scope "user" or "project"
// (dir is the project). Codex's TOML is not edited (see mainInstall).
func settingsFile(h Harness, scope, dir, home string) (string, error) {
	sub := map[Harness]string{Claude: ".claude", Gemini: ".gemini"}[h]
	if sub == "" {
		return "", fmt.Errorf("vtexec edits no settings file of %s", h)
	}
	switch scope {
	case "user":
		if home == "" {
			return "", errors.New("no home directory")
		}
		return filepath.Join(home, sub, "settings.json"), nil
	case "project":
		return filepath.Join(dir, sub, "settings.json"), nil
	}
	return "", fmt.Errorf("unknown scope %q (user or project)", scope)
}

// eventName is h's pre-tool event.
func eventName(h Harness) string {
	if h == Gemini {
		return "BeforeTool"
	}
	return "PreToolUse"
}

// matchers send every tool to the hook, which knows each by name and
// refuses one it does not know (see toolClass).
var matchers = map[Harness]string{Claude: ".*", Gemini: ".*", Codex: ".*"}

// HookCommand is the command line a harness runs for the hook; pinned, if
// not "", is the workspace every event of it is confined to.
func HookCommand(exe string, h Harness, pinned string) string {
	cmd := quote(exe) + " hook --harness " + string(h)
	if pinned != "" {
		cmd += " --workspace " + quote(pinned)
	}
	return cmd
}

// entry is the matcher group Install adds.
func entry(exe string, h Harness, pinned string) map[string]any {
	hk := map[string]any{"type": "command", "command": HookCommand(exe, h, pinned)}
	if h == Gemini {
		hk["name"], hk["timeout"] = "vtexec", json.Number("30000") // milliseconds
	} else {
		hk["timeout"] = json.Number("30") // seconds
	}
	return map[string]any{"matcher": matchers[h], "hooks": []any{hk}}
}

// CodexSnippet is the TOML to add to $CODEX_HOME/config.toml.
func CodexSnippet(exe, pinned string) string {
	cmd, _ := json.Marshal(HookCommand(exe, Codex, pinned))
	return "[[hooks.PreToolUse]]\nmatcher = \".*\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = " + string(cmd) + "\ntimeout = 30\n"
}

// ourCommand is a hook command HookCommand wrote, whatever the binary's
// path or name.
var ourCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^('[^']*'|[^\s']+) hook --harness (claude|codex|gemini|auto)(\s|$)`)
})

// isOurs reports whether a hook is vtexec's.
func isOurs(hk any) bool {
	m, _ := hk.(map[string]any)
	cmd, _ := m["command"].(string)
	return ourCommand().MatchString(strings.TrimSpace(cmd))
}

// Edit returns the settings data with vtexec's hook put in (install) or
// taken out (!install), pinned to a workspace if pinned is not "". Everything else stays as it was; other hooks too.
// changed is false when there was nothing to do.
func Edit(data []byte, h Harness, exe, pinned string, install bool) (out []byte, changed bool, err error) {
	settings := map[string]any{}
	if len(bytes.TrimSpace(data)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&settings); err != nil {
			return nil, false, fmt.Errorf("the settings are not a JSON object: %v", err)
		}
	}
	hooks, ok := settings["hooks"].(map[string]any)
	if settings["hooks"] != nil && !ok {
		return nil, false, errors.New(`"hooks" is not an object`)
	}
	if hooks == nil {
		hooks = map[string]any{}
	}
	ev := eventName(h)
	groups, ok := hooks[ev].([]any)
	if hooks[ev] != nil && !ok {
		return nil, false, fmt.Errorf(`"hooks.%s" is not a list`, ev)
	}
	// Take out every vtexec hook of this event, keeping the rest.
	var kept []any
	removed := 0
	for _, g := range groups {
		gm, ok := g.(map[string]any)
		list, ok2 := gm["hooks"].([]any)
		if !ok || !ok2 {
			kept = append(kept, g)
			continue
		}
		var others []any
		for _, hk := range list {
			if isOurs(hk) {
				removed++
			} else {
				others = append(others, hk)
			}
		}
		if len(others) == len(list) {
			kept = append(kept, g)
		} else if len(others) > 0 {
			c := map[string]any{}
			for k, v := range gm {
				c[k] = v
			}
			c["hooks"] = others
			kept = append(kept, c)
		}
	}
	want := entry(exe, h, pinned)
	if install {
		// Already there exactly as it would be written: nothing to do.
		if removed == 1 && containsEqual(groups, want) {
			return data, false, nil
		}
		kept = append(kept, want)
	} else if removed == 0 {
		return data, false, nil
	}
	switch {
	case len(kept) > 0:
		hooks[ev] = kept
	default:
		delete(hooks, ev)
	}
	if len(hooks) > 0 {
		settings["hooks"] = hooks
	} else {
		delete(settings, "hooks")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(settings); err != nil {
		return nil, false, err
	}
	return b.Bytes(), true, nil
}

func containsEqual(groups []any, want map[string]any) bool {
	w, _ := json.Marshal(want)
	for _, g := range groups {
		if b, _ := json.Marshal(g); bytes.Equal(b, w) {
			return true
		}
	}
	return false
}

// writeAtomic replaces path with data through a temporary file in the
// same directory, keeping the file's mode; a link is written through.
func writeAtomic(path string, data []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, data, mode)
}

// mainInstall is `vtexec hook install|uninstall`.
func mainInstall(install bool, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	verb := map[bool]string{true: "install", false: "uninstall"}[install]
	fs := flag.NewFlagSet("hook "+verb, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	harness := fs.String("harness", "", "claude, codex or gemini")
	scope := fs.String("scope", "user", "user (your settings) or project (the project's settings)")
	dir := fs.String("workspace", "", "the project: pinned as the hook's workspace, and where --scope project writes (default .)")
	dryRun := fs.Bool("dry-run", false, "print the settings file as it would be, write nothing")
	if code, done := parseFlags(fs, args, "vtexec hook "+verb+" --harness claude|codex|gemini [--scope user|project] [--workspace DIR] [--dry-run]", stdout, stderr); done {
		return code
	}
	h := Harness(*harness)
	pinned := ""
	if *dir != "" {
		abs, err := filepath.Abs(*dir)
		if err != nil {
			fmt.Fprintf(stderr, "vtexec hook: %v\n", err)
			return 1
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			fmt.Fprintf(stderr, "vtexec hook: --workspace %s is not a directory\n", abs)
			return 2
		}
		pinned = abs
	}
	exe := selfPath()
	if exe == "" {
		fmt.Fprintln(stderr, "vtexec hook: cannot find the path of the vtexec binary")
		return 1
	}
	switch h {
	case Claude, Gemini:
	case Codex:
		if install {
			fmt.Fprint(stdout, CodexSnippet(exe, pinned))
		}
		if *dryRun {
			return 0
		}
		fmt.Fprintf(stderr, "vtexec hook: vtexec does not edit Codex's config.toml; %s these lines in $CODEX_HOME/config.toml (default ~/.codex/config.toml) yourself:\n%s", map[bool]string{true: "add", false: "remove"}[install], CodexSnippet(exe, pinned))
		return 1
	default:
		fmt.Fprintf(stderr, "vtexec hook: --harness must be claude, codex or gemini, not %q\n", h)
		return 2
	}
	project := pinned
	if project == "" {
		project, _ = filepath.Abs(".")
	}
	path, err := settingsFile(h, *scope, project, getenv("HOME"))
	if err != nil {
		fmt.Fprintf(stderr, "vtexec hook: %v\n", err)
		return 2
	}
	// A settings file is small; a named pipe or a huge file there is not
	// one, and a plain read would wait on it or fill the memory.
	data, _, err := fsutil.ReadRegular(path, 16<<20, true)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "vtexec hook: %v\n", err)
		return 1
	}
	out, changed, err := Edit(data, h, exe, pinned, install)
	if err != nil {
		fmt.Fprintf(stderr, "vtexec hook: %s: %v (nothing written)\n", path, err)
		return 1
	}
	switch {
	case *dryRun:
		stdout.Write(out)
	case !changed:
		fmt.Fprintf(stdout, "%s: nothing to %s\n", path, verb)
	default:
		if err := writeAtomic(path, out); err != nil {
			fmt.Fprintf(stderr, "vtexec hook: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s: vtexec hook %sed\n", path, verb)
	}
	return 0
}
