package validators

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

// ruff (0.5 and later) lints and formats Python. It runs no plugins: its
// configuration (pyproject.toml's [tool.ruff], ruff.toml or .ruff.toml,
// the nearest one above each file) holds settings, of which cache-dir is
// a place it writes and extend a file it reads. ruff check --fix and
// --add-noqa, and ruff format without --check or --diff, rewrite the
// Python files below their operands. Like mypy, ruff reads a word that
// starts with @ as a file of more arguments, which vtexec refuses.
//
// Modelled from ruff's documentation: ruff is not packaged for this
// machine's Debian, so the arity probe has not run it (see
// docs/commands.md).

var ruffCommon = []Flag{
	{Short: "h", Long: "help"}, {Short: "v", Long: "verbose"}, {Short: "q", Long: "quiet"}, {Short: "s", Long: "silent"},
	{Long: "config", Arg: Text}, {Long: "isolated"}, {Short: "n", Long: "no-cache"}, {Long: "cache-dir", Arg: WritePath},
	{Long: "stdin-filename", Arg: Text}, {Long: "exclude", Arg: Text}, {Long: "extend-exclude", Arg: Text},
	{Long: "respect-gitignore"}, {Long: "no-respect-gitignore"}, {Long: "force-exclude"}, {Long: "no-force-exclude"},
	{Long: "line-length", Arg: Number}, {Long: "target-version", Arg: Text}, {Long: "preview"}, {Long: "no-preview"},
	{Long: "extension", Arg: Text}, {Long: "output-format", Arg: Text},
}

var ruffSpecs = sync.OnceValue(func() map[string]*Spec {
	return map[string]*Spec{
		"check": {Name: "ruff check", Doc: "[PATHS]: Python files and directories, confined; --fix and --add-noqa rewrite them", Operands: checkRuff,
			Flags: append([]Flag{{Long: "fix"}, {Long: "no-fix"}, {Long: "unsafe-fixes"}, {Long: "no-unsafe-fixes"},
				{Long: "show-fixes"}, {Long: "no-show-fixes"}, {Long: "diff"}, {Long: "fix-only"}, {Long: "no-fix-only"},
				{Long: "ignore-noqa"}, {Short: "o", Long: "output-file", Arg: WritePath}, {Long: "statistics"},
				{Long: "add-noqa"}, {Long: "show-files"}, {Long: "show-settings"},
				{Long: "select", Arg: Text}, {Long: "ignore", Arg: Text}, {Long: "extend-select", Arg: Text},
				{Long: "per-file-ignores", Arg: Text}, {Long: "extend-per-file-ignores", Arg: Text},
				{Long: "fixable", Arg: Text}, {Long: "unfixable", Arg: Text}, {Long: "extend-fixable", Arg: Text},
				{Short: "e", Long: "exit-zero"}, {Long: "exit-non-zero-on-fix"}, {Long: "dummy-variable-rgx", Arg: Text},
				{Short: "w", Long: "watch", Forbid: "watches and runs again until it is stopped"}}, ruffCommon...)},
		"format": {Name: "ruff format", Doc: "[PATHS]: Python files and directories, rewritten unless --check or --diff", Operands: checkRuff,
			Flags: append([]Flag{{Long: "check"}, {Long: "diff"}, {Long: "range", Arg: Text}, {Long: "exit-non-zero-on-format"}}, ruffCommon...)},
		"rule":    {Name: "ruff rule", Doc: "RULE, or --all: prints its explanation", Operands: Texts, Flags: []Flag{{Long: "all"}, {Long: "output-format", Arg: Text}, {Short: "h", Long: "help"}}},
		"linter":  {Name: "ruff linter", Doc: "no operands", Operands: noOperands, Flags: []Flag{{Long: "output-format", Arg: Text}, {Short: "h", Long: "help"}}},
		"config":  {Name: "ruff config", Doc: "[KEY]: prints a setting's documentation", Operands: Texts, Flags: []Flag{{Long: "output-format", Arg: Text}, {Short: "h", Long: "help"}}},
		"version": {Name: "ruff version", Doc: "no operands", Operands: noOperands, Flags: []Flag{{Long: "output-format", Arg: Text}, {Short: "h", Long: "help"}}},
	}
})

func checkRuffCall(c *Call) error {
	args := c.Argv[1:]
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-V" || args[0] == "--help" || args[0] == "-h") {
		return nil
	}
	if err := argumentFiles("ruff", args); err != nil {
		return err
	}
	if len(args) == 0 {
		return ErrUnlisted
	}
	spec, ok := ruffSpecs()[args[0]]
	if !ok {
		return ErrUnlisted // server, analyze, clean: a person decides
	}
	return spec.Check(&Call{Argv: append([]string{"ruff " + args[0]}, args[1:]...), WS: c.WS, Git: c.Git})
}

// checkRuff checks the operands (written where ruff rewrites them), the
// --config given (a file, or KEY=VALUE), and the configuration ruff
// finds above the working directory.
func checkRuff(c *Call, a *Args) error {
	for _, cfg := range a.Values("config") {
		if key, _, inline := strings.Cut(cfg, "="); inline {
			if k := optionKey(strings.TrimSpace(key)); k == "cache_dir" || k == "extend" {
				return ErrUnlisted // a place to write or read, in TOML vtexec does not parse here
			}
			continue
		}
		if err := c.ReadPath(cfg, false); err != nil {
			return err
		}
		if err := ruffConfigPaths(c, filepath.Join(c.WS.Cwd(), cfg)); err != nil {
			return err
		}
	}
	if !a.Has("isolated") && len(a.Values("config")) == 0 {
		for _, name := range []string{"ruff.toml", ".ruff.toml", "pyproject.toml"} {
			if p := findUp(c.WS.Cwd(), name); p != "" {
				if err := ruffConfigPaths(c, p); err != nil {
					return err
				}
			}
		}
	}
	writes := c.Program() == "ruff format" && !a.Has("check") && !a.Has("diff") ||
		c.Program() == "ruff check" && (a.Has("fix") || a.Has("add-noqa") || a.Has("fix-only")) && !a.Has("diff")
	ops := a.Operands
	if len(ops) == 0 {
		ops = []string{"."}
	}
	for _, op := range ops {
		if op == "-" {
			continue
		}
		var err error
		if writes {
			err = checkFilesWritten(c, op, pythonSource, nil)
		} else {
			err = c.ReadPath(op, false)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ruffConfigPaths checks the places a ruff configuration names:
// cache-dir is written, extend read.
func ruffConfigPaths(c *Call, p string) error {
	var settings map[string]any
	var err error
	if filepath.Base(p) == "pyproject.toml" {
		settings, err = pyprojectTool(p, "ruff")
	} else {
		var data []byte
		if data, err = readConfigFile(p); err == nil {
			err = toml.Unmarshal(data, &settings)
		}
	}
	if errors.Is(err, errNoConfig) {
		return nil
	}
	if err != nil {
		return refuse(CodeBadUsage, "fix the configuration file", "ruff: cannot read %s: %v", c.WS.Rel(p), err)
	}
	base := &Call{Argv: c.Argv, WS: c.WS, Git: c.Git}
	for k, v := range settings {
		for _, s := range configValueStrings(v) {
			switch optionKey(k) {
			case "cache_dir":
				if err := base.WritePath(resolveFrom(p, s)); err != nil {
					return err
				}
			case "extend":
				if err := base.ReadPath(resolveFrom(p, s), false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// resolveFrom is a path a configuration file names, taken from the
// file's directory unless absolute.
func resolveFrom(file, p string) string {
	if filepath.IsAbs(p) || strings.HasPrefix(p, "~") {
		return p
	}
	return filepath.Join(filepath.Dir(file), p)
}

func registerRuff() {
	register("ruff", ValidatorFunc(checkRuffCall), func() Entry {
		return Entry{Program: "ruff", Operands: "check [--fix] [PATHS], format [--check|--diff] [PATHS], rule, linter, config, version, --version: " +
			"modelled from ruff's documentation, not run against a real ruff here; writes are checked like any writer, @FILE is refused; server, analyze and clean are for a person",
			Refused: []Refusal{{Flag: "check --watch", Reason: "watches and runs again until it is stopped"}, {Flag: "@FILE", Reason: "reads more arguments from a file"}}}
	})
}
