package validators

import (
	"errors"
	"strings"
	"sync"
)

// go and npm are developer tools a person approves (DevToolRules), but
// a few of their uses only read and print: those are allowed here, and
// every other use returns ErrUnlisted. They run with vtexec's go preset
// (GOTOOLCHAIN=local, GOPROXY=off: nothing is downloaded or switched)
// and, like everything, in the kernel box.

// goVersionSpec is `go version` alone: it prints the toolchain's version
// (with -m FILE it would read a binary's build information; not offered).
var goVersionSpec = &Spec{Name: "go version", Doc: "no operands", GoFlags: true}

// goEnvSpec is `go env` reading: every variable, some by name, or as
// JSON. -w and -u write the user's go env file and are not allowed here.
var goEnvSpec = &Spec{Name: "go env", Doc: "[VAR]...: variable names, printed", GoFlags: true, Operands: goEnvNames, Flags: []Flag{
	{Long: "json"}, {Long: "changed"},
	{Short: "w", Forbid: "writes the user's go env file"}, {Short: "u", Forbid: "writes the user's go env file"},
}}

// goListSpec is `go list` without a build: -export, -compiled and the
// build flags that name programs or files are not offered.
var goListSpec = &Spec{Name: "go list", Doc: "[PACKAGES]: import paths, patterns (./...) or directories inside the workspace", GoFlags: true, Operands: goPackages, Flags: []Flag{
	{Short: "f", Arg: Text}, {Long: "json", Arg: Text, Optional: true}, {Short: "m"}, {Short: "e"}, {Long: "deps"},
	{Long: "test"}, {Long: "find"}, {Long: "tags", Arg: Text},
}}

// goDocSpec is `go doc`: it prints documentation from source; -http
// (a server) is not offered.
var goDocSpec = &Spec{Name: "go doc", Doc: "[PACKAGE|SYMBOL]...: names or directories inside the workspace", GoFlags: true, Operands: goPackages, Flags: []Flag{
	{Long: "all"}, {Short: "c"}, {Long: "cmd"}, {Long: "short"}, {Long: "src"}, {Short: "u"},
}}

// goHelpSpec is `go help [TOPIC]`: it prints documentation.
var goHelpSpec = &Spec{Name: "go help", Doc: "[TOPIC]...: names of commands or topics", GoFlags: true, Operands: Texts}

var goSubs = sync.OnceValue(func() map[string]*Spec {
	return map[string]*Spec{"version": goVersionSpec, "env": goEnvSpec, "list": goListSpec, "doc": goDocSpec, "help": goHelpSpec,
		"build": goBuildSpec(), "vet": goVetSpec(), "fmt": goFmtSpec, "clean": goCleanSpec}
})

func registerGo() {
	register("go", ValidatorFunc(checkGo), func() Entry {
		return Entry{Program: "go", Operands: "version; help [TOPIC]; env [-json] [VAR]...; list [-f T] [-json] [-m] [-e] [-deps] [-test] [-find] [-tags T] [PACKAGES]; doc [-all] [-c] [-cmd] [-short] [-src] [-u] [NAME]...: these only read and print; build and vet [BUILD FLAGS] [PACKAGES] (-o inside, -ldflags and -gcflags of known flags only), fmt [PACKAGES], clean -cache|-testcache|-fuzzcache, mod tidy|verify|why|graph: these compile, format or tidy and run none of the project's code; every other use (test, run, generate, get, install, tool) is a developer tool a person approves",
			Refused: []Refusal{{Flag: "env -w, env -u", Reason: "writes the user's go env file"},
				{Flag: "build/vet -toolexec, -exec, -vettool, -gccgoflags, -pkgdir", Reason: "run a program of the caller's choosing, or write outside the build cache"}}}
	})
}

func checkGo(c *Call) error {
	if len(c.Argv) < 2 {
		return ErrUnlisted
	}
	spec, ok := goSubs()[c.Argv[1]]
	name, rest := "go "+c.Argv[1], c.Argv[2:]
	if c.Argv[1] == "mod" && len(c.Argv) > 2 {
		spec, ok = goModSpecs()[c.Argv[2]]
		name, rest = "go mod "+c.Argv[2], c.Argv[3:]
	}
	if !ok {
		return ErrUnlisted
	}
	err := checkToolUse(c, spec, name, rest)
	if err == nil && (c.Argv[1] == "list" || c.Argv[1] == "doc") {
		// They read the packages of the modules go.work and go.mod name.
		return goModulesInside("go "+c.Argv[1], c.WS)
	}
	return err
}

// goEnvNames accepts variable names only.
func goEnvNames(c *Call, a *Args) error {
	for _, op := range a.Operands {
		if op == "" || strings.Trim(op, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != "" {
			return refuse(CodeBadUsage, "name go variables in capitals, e.g. go env GOPATH", "go env: %q is not a variable name", op)
		}
	}
	return nil
}

// goPackages confines operands that are directories (./x, ../x, /x);
// import paths and patterns are names the go command resolves itself.
func goPackages(c *Call, a *Args) error {
	for _, op := range a.Operands {
		p := strings.TrimSuffix(strings.TrimSuffix(op, "/..."), "...")
		if strings.HasPrefix(op, ".") || strings.HasPrefix(op, "/") {
			if p == "" {
				p = "."
			}
			if err := c.ReadPath(p, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// npmLsSpec is `npm ls`: it reads package.json, the lock file and
// node_modules, and prints the dependency tree; it runs no package code.
var npmLsSpec = &Spec{Name: "npm ls", Doc: "[PACKAGE]...: names, matched in the tree", Operands: Texts, Flags: []Flag{
	{Short: "a", Long: "all"}, {Long: "depth", Arg: Number}, {Long: "json"}, {Short: "l", Long: "long"},
	{Short: "p", Long: "parseable"}, {Short: "g", Long: "global"}, {Long: "omit", Arg: Text}, {Long: "include", Arg: Text},
	{Long: "link"}, {Long: "package-lock-only"}, {Long: "unicode"}, {Long: "no-unicode"}, {Long: "prod"},
	{Long: "production"}, {Long: "dev"}, {Long: "no-color"},
}}

func registerNpm() {
	register("npm", ValidatorFunc(checkNpm), func() Entry {
		return Entry{Program: "npm", Operands: "ls|list [-a] [--depth N] [--json] [-l] [-p] [-g] [--omit T] [--include T] [PACKAGE]...; pkg get [KEY]...; run (no script: lists them); --version: these only read and print; every other use is a developer tool a person approves"}
	})
}

func checkNpm(c *Call) error {
	args := c.Argv[1:]
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-v") {
		return nil
	}
	switch {
	case len(args) == 1 && (args[0] == "run" || args[0] == "run-script"):
		// Without a script, npm run lists the scripts.
		return npmProjectInside("npm run", c.WS)
	case len(args) >= 2 && args[0] == "pkg" && args[1] == "get":
		// npm pkg get [KEY]... prints fields of package.json.
		for _, key := range args[2:] {
			if key == "" || strings.HasPrefix(key, "-") {
				return ErrUnlisted
			}
		}
		return npmProjectInside("npm pkg get", c.WS)
	case len(args) == 0 || (args[0] != "ls" && args[0] != "list"):
		return ErrUnlisted
	}
	err := checkToolUse(c, npmLsSpec, "npm "+args[0], args[1:])
	if err == nil {
		return npmProjectInside("npm "+args[0], c.WS)
	}
	return err
}

// checkToolUse checks one use of a developer tool (name is the tool and
// its subcommand, args what follows) against the spec of the uses vtexec
// allows. A finding the spec makes because it does not know the use (an
// unknown flag, other operands) is ErrUnlisted: a person decides, as for
// any other use of the tool. A refused flag and a path outside stand.
func checkToolUse(c *Call, spec *Spec, name string, args []string) error {
	err := spec.Check(&Call{Argv: append([]string{name}, args...), WS: c.WS, Git: c.Git})
	var f *Finding
	if errors.As(err, &f) && f.Code != CodeForbiddenFlag && !isPathCode(f.Code) {
		return ErrUnlisted
	}
	return err
}

// isPathCode reports whether a finding's code is about a path (outside
// the workspace, protected …): those stand, whoever would decide.
func isPathCode(code string) bool {
	switch code {
	case CodeUnknownFlag, CodeForbiddenFlag, CodeBadUsage, CodeForbidden:
		return false
	}
	return true
}
