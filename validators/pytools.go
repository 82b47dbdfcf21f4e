package validators

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Python's linters, formatter and type checker: flake8 (5.0), black
// (23.1) and mypy (1.0) read the project's files and report; black
// rewrites the files it is given. None runs the project's code, but
// their configuration can make them: flake8's local plugins and mypy's
// plugins are modules they import, and mypy's python_executable is an
// interpreter it starts. A configuration that does either makes the
// command a developer tool a person approves (ErrUnlisted); a path it
// names is checked like an argument.

// flake8Spec is flake8 5.0's options (argparse: --name=value or the next
// word; abbreviations are refused like everywhere).
var flake8Spec = &Spec{Name: "flake8", Doc: "files and directories to check, confined (- is standard input)", Operands: checkFlake8, Flags: []Flag{
	{Short: "h", Long: "help"}, {Short: "v", Long: "verbose"}, {Short: "q", Long: "quiet"}, {Long: "version"},
	{Long: "output-file", Arg: WritePath}, {Long: "tee"},
	{Long: "append-config", Arg: ReadPath}, {Long: "config", Arg: ReadPath}, {Long: "isolated"},
	{Long: "enable-extensions", Arg: Text}, {Long: "require-plugins", Arg: Text},
	{Long: "color", Arg: Text}, {Long: "count"}, {Long: "diff"},
	{Long: "exclude", Arg: Text}, {Long: "extend-exclude", Arg: Text}, {Long: "filename", Arg: Text},
	{Long: "stdin-display-name", Arg: Text}, {Long: "format", Arg: Text}, {Long: "hang-closing"},
	{Long: "ignore", Arg: Text}, {Long: "extend-ignore", Arg: Text}, {Long: "per-file-ignores", Arg: Text},
	{Long: "max-line-length", Arg: Number}, {Long: "max-doc-length", Arg: Number}, {Long: "indent-size", Arg: Number},
	{Long: "select", Arg: Text}, {Long: "extend-select", Arg: Text}, {Long: "disable-noqa"},
	{Long: "show-source"}, {Long: "no-show-source"}, {Long: "statistics"}, {Long: "exit-zero"},
	{Short: "j", Long: "jobs", Arg: Text}, {Long: "bug-report"},
	{Long: "max-complexity", Arg: Number}, {Long: "builtins", Arg: Text}, {Long: "doctests"},
	{Long: "include-in-doctest", Arg: Text}, {Long: "exclude-from-doctest", Arg: Text},
}}

// checkFlake8 checks the operands and the configuration flake8 reads:
// --config, or the first setup.cfg, tox.ini or .flake8 with a flake8
// section from the working directory up to the home directory or /
// (above the workspace too), and every --append-config.
func checkFlake8(c *Call, a *Args) error {
	if err := ReadPaths(c, a); err != nil {
		return err
	}
	var files []string
	switch {
	case a.Has("isolated"):
	case len(a.Values("config")) > 0:
		files = append(files, a.Values("config")...)
	default:
		if f := flake8FoundConfig(c.WS.Cwd()); f != "" {
			files = append(files, f)
		}
	}
	files = append(files, a.Values("append-config")...)
	for _, f := range files {
		if !filepath.IsAbs(f) {
			f = filepath.Join(c.WS.Cwd(), f)
		}
		ini, err := readINI(f)
		if errors.Is(err, errNoConfig) {
			continue
		}
		if err != nil {
			return refuse(CodeBadUsage, "fix the configuration file", "flake8: cannot read %s: %v", c.WS.Rel(f), err)
		}
		if _, ok := ini["flake8:local-plugins"]; ok {
			return ErrUnlisted // it imports modules the configuration names
		}
		for name, section := range ini {
			if name != "flake8" {
				continue
			}
			for k, v := range section {
				switch optionKey(k) {
				case "output_file":
					if err := c.WritePath(v); err != nil {
						return err
					}
				case "append_config", "config":
					return ErrUnlisted // a configuration that reads another
				}
			}
		}
	}
	return nil
}

// flake8FoundConfig is the configuration file flake8 5 finds from dir.
func flake8FoundConfig(dir string) string {
	home, _ := os.UserHomeDir()
	for d := dir; ; d = filepath.Dir(d) {
		for _, name := range []string{"setup.cfg", "tox.ini", ".flake8"} {
			p := filepath.Join(d, name)
			ini, err := readINI(p)
			if err != nil {
				if !errors.Is(err, errNoConfig) {
					return p // unreadable here, flake8 stops with an error: judge it
				}
				continue
			}
			if _, ok := ini["flake8"]; ok {
				return p
			}
			if _, ok := ini["flake8:local-plugins"]; ok {
				return p
			}
		}
		if d == home || filepath.Dir(d) == d {
			return ""
		}
	}
}

// blackSpec is black 23.1's options (click: --name=value or the next
// word).
var blackSpec = &Spec{Name: "black", Doc: "files and directories to format, confined (- is standard input); written unless --check or --diff", Operands: checkBlack, Flags: []Flag{
	{Short: "c", Long: "code", Arg: Text}, {Short: "l", Long: "line-length", Arg: Number},
	{Short: "t", Long: "target-version", Arg: Text}, {Long: "pyi"}, {Long: "ipynb"},
	{Long: "python-cell-magics", Arg: Text}, {Short: "x", Long: "skip-source-first-line"},
	{Short: "S", Long: "skip-string-normalization"}, {Short: "C", Long: "skip-magic-trailing-comma"},
	{Long: "preview"}, {Long: "check"}, {Long: "diff"}, {Long: "color"}, {Long: "no-color"},
	{Long: "fast"}, {Long: "safe"}, {Long: "required-version", Arg: Text},
	{Long: "include", Arg: Text}, {Long: "exclude", Arg: Text}, {Long: "extend-exclude", Arg: Text},
	{Long: "force-exclude", Arg: Text}, {Long: "stdin-filename", Arg: Text},
	{Short: "W", Long: "workers", Arg: Number}, {Short: "q", Long: "quiet"}, {Short: "v", Long: "verbose"},
	{Long: "version"}, {Long: "config", Arg: ReadPath}, {Short: "h", Long: "help"},
}}

// checkBlack: the operands are read, and written (every Python file
// below a directory) unless --check or --diff; its configuration
// (pyproject.toml's [tool.black]) holds options only.
func checkBlack(c *Call, a *Args) error {
	if a.Has("check") || a.Has("diff") || len(a.Values("code")) > 0 {
		return ReadPaths(c, a)
	}
	for _, op := range a.Operands {
		if op == "-" {
			continue
		}
		if err := checkFilesWritten(c, op, pythonSource, nil); err != nil {
			return err
		}
	}
	return nil
}

// pythonSource is a file black formats below a directory.
func pythonSource(name string) bool {
	return strings.HasSuffix(name, ".py") || strings.HasSuffix(name, ".pyi") || strings.HasSuffix(name, ".ipynb")
}

// mypyReports are mypy's options that write a report to a directory or
// file.
var mypyReports = []string{"any-exprs-report", "cobertura-xml-report", "html-report", "linecount-report",
	"linecoverage-report", "lineprecision-report", "txt-report", "xml-report", "xslt-html-report",
	"xslt-txt-report", "junit-xml"}

// mypyInvertible are mypy's flags that come with an inverse spelling.
var mypyInvertible = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"warn-unused-configs": "no-warn-unused-configs", "namespace-packages": "no-namespace-packages",
		"silence-site-packages": "no-silence-site-packages", "site-packages": "no-site-packages",
		"disallow-any-unimported": "allow-any-unimported", "disallow-any-expr": "allow-any-expr",
		"disallow-any-decorated": "allow-any-decorated", "disallow-any-explicit": "allow-any-explicit",
		"disallow-any-generics": "allow-any-generics", "disallow-subclassing-any": "allow-subclassing-any",
		"disallow-untyped-calls": "allow-untyped-calls", "disallow-untyped-defs": "allow-untyped-defs",
		"disallow-incomplete-defs": "allow-incomplete-defs", "check-untyped-defs": "no-check-untyped-defs",
		"disallow-untyped-decorators": "allow-untyped-decorators", "implicit-optional": "no-implicit-optional",
		"strict-optional": "no-strict-optional", "warn-redundant-casts": "no-warn-redundant-casts",
		"warn-unused-ignores": "no-warn-unused-ignores", "warn-no-return": "no-warn-no-return",
		"warn-return-any": "no-warn-return-any", "warn-unreachable": "no-warn-unreachable",
		"allow-untyped-globals": "disallow-untyped-globals", "allow-redefinition": "disallow-redefinition",
		"implicit-reexport": "no-implicit-reexport", "strict-equality": "no-strict-equality",
		"strict-concatenate": "no-strict-concatenate", "show-error-context": "hide-error-context",
		"show-column-numbers": "hide-column-numbers", "show-error-end": "hide-error-end",
		"show-error-codes": "hide-error-codes", "pretty": "no-pretty", "color-output": "no-color-output",
		"error-summary": "no-error-summary", "show-absolute-path": "hide-absolute-path",
		"incremental": "no-incremental", "sqlite-cache": "no-sqlite-cache",
		"warn-incomplete-stub": "no-warn-incomplete-stub", "interactive": "non-interactive",
		"explicit-package-bases": "no-explicit-package-bases", "fast-module-lookup": "no-fast-module-lookup",
		"follow-imports-for-stubs": "no-follow-imports-for-stubs",
		"local-partial-types":      "no-local-partial-types", "disable-bytearray-promotion": "",
		"disable-memoryview-promotion": "",
	}
})

var mypySpec = sync.OnceValue(func() *Spec {
	s := &Spec{Name: "mypy", Doc: "files and directories to check, confined", Operands: checkMypy, Flags: []Flag{
		{Short: "h", Long: "help"}, {Short: "v", Long: "verbose"}, {Short: "V", Long: "version"},
		{Long: "enable-incomplete-feature", Arg: Text}, {Long: "config-file", Arg: ReadPath},
		{Long: "ignore-missing-imports"}, {Long: "follow-imports", Arg: Text},
		{Long: "python-executable", Arg: Text, Forbid: "starts the interpreter it names to find its packages"},
		{Long: "no-silence-site-packages"}, {Long: "python-version", Arg: Text},
		{Long: "platform", Arg: Text}, {Long: "always-true", Arg: Text},
		{Long: "always-false", Arg: Text}, {Long: "strict"},
		{Long: "disable-error-code", Arg: Text}, {Long: "enable-error-code", Arg: Text},
		{Long: "cache-dir", Arg: WritePath}, {Long: "cache-fine-grained"}, {Long: "skip-version-check"},
		{Long: "skip-cache-mtime-checks"},
		{Long: "pdb", Forbid: "starts the Python debugger, which runs what it reads as code"},
		{Long: "show-traceback"}, {Long: "tb"}, {Long: "raise-exceptions"},
		{Long: "custom-typing-module", Arg: Text}, {Long: "disable-recursive-aliases"},
		{Long: "custom-typeshed-dir", Arg: ReadPath},
		{Long: "shadow-file", Arg: Text, Forbid: "takes two paths; not offered"},
		{Long: "find-occurrences", Arg: Text}, {Long: "scripts-are-modules"},
		{Long: "install-types", Forbid: "installs packages with pip"},
		{Long: "exclude", Arg: Text},
		{Short: "m", Long: "module", Arg: Text}, {Short: "p", Long: "package", Arg: Text},
		{Short: "c", Long: "command", Arg: Text},
	}}
	for _, r := range mypyReports {
		s.Flags = append(s.Flags, Flag{Long: r, Arg: WritePath})
	}
	for flag, inverse := range mypyInvertible() {
		s.Flags = append(s.Flags, Flag{Long: flag})
		if inverse != "" {
			s.Flags = append(s.Flags, Flag{Long: inverse})
		}
	}
	return s
})

// checkMypy checks the operands and the configuration mypy reads:
// --config-file, or the first of mypy.ini, .mypy.ini, pyproject.toml
// (with [tool.mypy]) and setup.cfg (with [mypy]) in the working
// directory.
func checkMypy(c *Call, a *Args) error {
	if err := argumentFiles("mypy", c.Argv[1:]); err != nil {
		return err
	}
	if err := ReadPaths(c, a); err != nil {
		return err
	}
	var candidates []string
	if cf := a.Values("config-file"); len(cf) > 0 {
		candidates = cf[len(cf)-1:]
	} else {
		candidates = []string{"mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg"}
	}
	for _, name := range candidates {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.WS.Cwd(), name)
		}
		settings, found, err := mypySettings(p)
		if err != nil {
			return refuse(CodeBadUsage, "fix the configuration file", "mypy: cannot read %s: %v", c.WS.Rel(p), err)
		}
		if !found {
			continue
		}
		for key, values := range settings {
			switch {
			case key == "plugins" || key == "python_executable":
				return ErrUnlisted // code the configuration names
			case key == "cache_dir" || strings.HasSuffix(key, "_report") || key == "junit_xml":
				for _, v := range values {
					if err := c.WritePath(v); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	return nil
}

// argumentFiles refuses a word that starts with @, which program (mypy,
// ruff) reads as a file of more arguments that vtexec cannot check.
func argumentFiles(program string, args []string) error {
	for _, w := range args {
		if strings.HasPrefix(w, "@") {
			return refuse(CodeForbiddenFlag, "write the arguments out instead of @FILE",
				"%s %s: %s reads a word that starts with @ as a file of more arguments, which vtexec cannot check", program, w, program)
		}
	}
	return nil
}

// mypySettings reads mypy's global section from the file at p (its
// name says which format): found is false when the file is missing or
// has no mypy section, as mypy then looks further.
func mypySettings(p string) (settings map[string][]string, found bool, err error) {
	settings = map[string][]string{}
	if filepath.Base(p) == "pyproject.toml" {
		tool, err := pyprojectTool(p, "mypy")
		if errors.Is(err, errNoConfig) || (err == nil && tool == nil) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		for k, v := range tool {
			if k == "overrides" {
				continue // per-module flags
			}
			settings[optionKey(k)] = configValueStrings(v)
		}
		return settings, true, nil
	}
	ini, err := readINI(p)
	if errors.Is(err, errNoConfig) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	section, ok := ini["mypy"]
	if !ok {
		return nil, filepath.Base(p) != "setup.cfg", nil // mypy.ini without [mypy] is still its file
	}
	for k, v := range section {
		settings[optionKey(k)] = splitConfigList(v)
	}
	return settings, true, nil
}

func registerPyTools() {
	registerSpec(flake8Spec)
	registerSpec(blackSpec)
	registerSpec(mypySpec())
}
