package validators

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Interpreters and build tools are developer tools a person approves
// (DevToolRules), but a few of their uses only print: their version, and
// for pip what is installed. Those are allowed here; every other use
// returns ErrUnlisted. `python3 -m TOOL` of a Python tool on the
// allowlist is checked as that tool, unless the working directory holds
// a module of that name, which -m would import first.

// versionFlags are the spellings that print a program's version and
// exit before reading anything else.
var versionFlags = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"python": {"--version", "-V", "-VV"}, "python3": {"--version", "-V", "-VV"},
		"node": {"--version", "-v"}, "make": {"--version", "-v"},
		"cargo": {"--version", "-V"}, "rustc": {"--version", "-V", "-vV"},
		"pip": {"--version", "-V"}, "pip3": {"--version", "-V"},
	}
})

// pythonModules are the modules `python -m` runs as a program on the
// allowlist.
func pythonModule(name string) (*Spec, bool) {
	switch name {
	case "flake8":
		return flake8Spec, true
	case "black":
		return blackSpec, true
	case "mypy":
		return mypySpec(), true
	case "pip":
		return nil, true
	}
	return nil, false
}

// checkQuery allows a version query, pip's listings and python -m of a
// tool on the allowlist.
func checkQuery(c *Call) error {
	name := filepath.Base(c.Argv[0])
	if strings.HasPrefix(name, "python") {
		name = strings.TrimRight(name, "0123456789.") // python3.11 is python3
		if name == "python" && strings.HasSuffix(filepath.Base(c.Argv[0]), "3") {
			name = "python3"
		}
	}
	args := c.Argv[1:]
	if len(args) == 1 && slices.Contains(versionFlags()[name], args[0]) {
		if (name == "cargo" || name == "rustc") && rustToolchain(c.WS.Cwd()) {
			return ErrUnlisted // a toolchain file may pick another cargo to run
		}
		return nil
	}
	switch name {
	case "cargo":
		return checkCargo(c, args)
	case "pip", "pip3":
		return checkPipQuery(c, args)
	case "python", "python3":
		if len(args) < 2 || args[0] != "-m" {
			return ErrUnlisted
		}
		spec, ok := pythonModule(args[1])
		// A virtual environment's interpreter imports the environment's
		// copy, which commands in the workspace can change.
		if !ok || strings.Contains(c.Argv[0], "/") || moduleInDir(c.WS.Cwd(), args[1]) {
			return ErrUnlisted
		}
		if spec == nil {
			return checkPipQuery(c, args[2:])
		}
		return spec.Check(&Call{Argv: append([]string{args[1]}, args[2:]...), WS: c.WS, Git: c.Git})
	}
	return ErrUnlisted
}

// moduleInDir reports whether dir holds something `python -m NAME`
// would import from it: NAME.py, NAME/, or NAME.*.so and the like.
func moduleInDir(dir, name string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return true
	}
	for _, e := range entries {
		if e.Name() == name || strings.HasPrefix(e.Name(), name+".") {
			return true
		}
	}
	return false
}

// rustToolchain reports whether rustup would find a rust-toolchain file
// from dir.
func rustToolchain(dir string) bool {
	return findUp(dir, "rust-toolchain") != "" || findUp(dir, "rust-toolchain.toml") != ""
}

// pipQuerySpecs are pip's listings: they read what is installed.
var pipQuerySpecs = sync.OnceValue(func() map[string]*Spec {
	global := []Flag{{Short: "q", Long: "quiet"}, {Short: "v", Long: "verbose"}, {Long: "no-color"},
		{Long: "disable-pip-version-check"}, {Long: "no-input"}, {Long: "isolated"}}
	list := &Spec{Name: "pip list", Doc: "no operands", Operands: noOperands, Flags: append([]Flag{
		{Short: "l", Long: "local"}, {Long: "user"}, {Long: "format", Arg: Text}, {Long: "not-required"},
		{Long: "exclude-editable"}, {Long: "include-editable"}, {Short: "e", Long: "editable"},
		{Long: "pre"}, {Long: "exclude", Arg: Text},
	}, global...)}
	show := &Spec{Name: "pip show", Doc: "PACKAGE...: names", Operands: Texts, Flags: append([]Flag{
		{Short: "f", Long: "files"},
	}, global...)}
	freeze := &Spec{Name: "pip freeze", Doc: "no operands", Operands: noOperands, Flags: append([]Flag{
		{Short: "l", Long: "local"}, {Long: "user"}, {Long: "all"}, {Long: "exclude-editable"}, {Long: "exclude", Arg: Text},
	}, global...)}
	return map[string]*Spec{"list": list, "show": show, "freeze": freeze}
})

func noOperands(c *Call, a *Args) error {
	if len(a.Operands) > 0 {
		return refuse(CodeBadUsage, "drop the operands", "%s takes no operands", c.Program())
	}
	return nil
}

// checkPipQuery allows pip's listings; anything else (install, an
// unknown flag) is for a person.
func checkPipQuery(c *Call, args []string) error {
	if len(args) == 0 {
		return ErrUnlisted
	}
	spec, ok := pipQuerySpecs()[args[0]]
	if !ok {
		return ErrUnlisted
	}
	return checkToolUse(c, spec, "pip "+args[0], args[1:])
}

func registerQueries() {
	for _, name := range []string{"cargo", "make", "node", "pip", "pip3", "python", "python3", "rustc"} {
		register(name, ValidatorFunc(checkQuery), func() Entry {
			ops := strings.Join(versionFlags()[name], ", ") + " alone"
			switch name {
			case "pip", "pip3":
				ops += "; list, show, freeze: these only read and print"
			case "cargo":
				ops += "; fmt [--check] [-- --check]; metadata; tree: these run none of the package's code (unless .cargo/config names a program, an alias or an environment setting, or a rust-toolchain file is there)"
			case "python", "python3":
				ops += "; -m flake8|black|mypy ARGS as that tool; -m pip list|show|freeze (not a virtual environment's interpreter, nor with a module of that name in the working directory)"
			}
			return Entry{Program: name, Operands: ops + "; every other use is a developer tool a person approves"}
		})
	}
}
