package validators

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
	"github.com/vtexec/vtexec/workspace"
)

// cargo is a developer tool a person approves: building runs the
// package's build scripts and procedural macros, which are its code. A
// few uses run none: cargo fmt (rustfmt rewrites the package's .rs
// files), cargo metadata and cargo tree (they read the manifests and the
// lock file), and the version. Cargo's own configuration can still make
// them run a program — a compiler, a wrapper or a linker it names, an
// alias for the subcommand, environment for what it starts — so a
// .cargo/config(.toml) with any such key, or a rust-toolchain file, makes
// them a person's to approve too (ErrUnlisted).

var cargoCommon = []Flag{
	{Short: "q", Long: "quiet"}, {Short: "v", Long: "verbose"}, {Long: "color", Arg: Text},
	{Long: "frozen"}, {Long: "locked"}, {Long: "offline"}, {Short: "h", Long: "help"},
	{Long: "manifest-path", Arg: ReadPath},
	{Long: "config", Arg: Text, Forbid: "overrides configuration, which can name programs to run"},
	{Short: "Z", Arg: Text, Forbid: "unstable flags can change what cargo runs"},
}

var cargoSpecs = sync.OnceValue(func() map[string]*Spec {
	return map[string]*Spec{
		"fmt": {Name: "cargo fmt", Doc: "[-- --check]: rewrites the package's .rs files, which must be writable", Operands: checkCargoFmt,
			Flags: append([]Flag{{Long: "check"}, {Long: "all"}, {Short: "p", Long: "package", Arg: Text},
				{Long: "message-format", Arg: Text}, {Long: "version"}}, cargoCommon...)},
		"metadata": {Name: "cargo metadata", Doc: "no operands", Operands: noOperands,
			Flags: append([]Flag{{Long: "format-version", Arg: Number}, {Long: "no-deps"}, {Long: "filter-platform", Arg: Text},
				{Short: "F", Long: "features", Arg: Text}, {Long: "all-features"}, {Long: "no-default-features"}}, cargoCommon...)},
		"tree": {Name: "cargo tree", Doc: "no operands", Operands: noOperands,
			Flags: append([]Flag{{Short: "p", Long: "package", Arg: Text}, {Long: "workspace"}, {Long: "exclude", Arg: Text},
				{Short: "F", Long: "features", Arg: Text}, {Long: "all-features"}, {Long: "no-default-features"},
				{Long: "target", Arg: Text}, {Short: "e", Long: "edges", Arg: Text}, {Short: "i", Long: "invert", Arg: Text},
				{Long: "prune", Arg: Text}, {Long: "depth", Arg: Number}, {Long: "prefix", Arg: Text}, {Long: "no-dedupe"},
				{Short: "d", Long: "duplicates"}, {Long: "charset", Arg: Text}, {Short: "f", Long: "format", Arg: Text}}, cargoCommon...)},
	}
})

// rustfmtArgs are the words cargo fmt may pass on to rustfmt after --.
var rustfmtArgs = []string{"--check", "-v", "--verbose", "-q", "--quiet", "-l", "--files-with-diff"}

// checkCargo allows cargo's uses that run none of the package's code.
func checkCargo(c *Call, args []string) error {
	if len(args) == 0 {
		return ErrUnlisted
	}
	spec, ok := cargoSpecs()[args[0]]
	if !ok {
		return ErrUnlisted
	}
	rest := args[1:]
	var passed []string
	if i := slices.Index(rest, "--"); i >= 0 {
		rest, passed = rest[:i], rest[i+1:]
		if args[0] != "fmt" {
			return ErrUnlisted
		}
		for _, p := range passed {
			if !slices.Contains(rustfmtArgs, p) {
				return ErrUnlisted // rustfmt's other options name files and configurations
			}
		}
	}
	if err := checkToolUse(c, spec, "cargo "+args[0], rest); err != nil {
		return err
	}
	if rustToolchain(c.WS.Cwd()) || cargoConfigRunsPrograms(c.WS.Cwd(), args[0]) {
		return ErrUnlisted
	}
	return nil
}

// checkCargoFmt: cargo fmt rewrites every .rs file of the package (its
// manifest's directory, but for target/ and hidden directories).
func checkCargoFmt(c *Call, a *Args) error {
	if len(a.Operands) > 0 {
		return ErrUnlisted
	}
	manifest := findUp(c.WS.Cwd(), "Cargo.toml")
	if manifest == "" {
		return nil // cargo fails: no package
	}
	if !insideWorkspace(c.WS, manifest) {
		return refuse(string(workspace.Outside), "work in a package inside the workspace",
			"cargo fmt: the package at %s is outside the workspace", filepath.Dir(manifest))
	}
	return checkFilesWritten(c, filepath.Dir(manifest), func(name string) bool { return strings.HasSuffix(name, ".rs") },
		func(name string) bool { return name == "target" || strings.HasPrefix(name, ".") })
}

// cargoEnvKnown are [env] settings that only change how a program
// reports or how many tests run at once.
var cargoEnvKnown = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"RUST_TEST_THREADS": true, "RUST_BACKTRACE": true, "RUST_LOG": true,
		"CARGO_TERM_COLOR": true, "RUST_MIN_STACK": true, "TZ": true, "LANG": true, "LC_ALL": true}
})

// cargoConfigRunsPrograms reports whether a cargo configuration file cargo
// reads from dir (.cargo/config.toml or .cargo/config in dir and every
// directory above it) names a program to run, an alias for sub, or an
// environment setting not known to be harmless; an unreadable one counts
// as such.
func cargoConfigRunsPrograms(dir, sub string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		for _, name := range []string{"config.toml", "config"} {
			data, err := readConfigFile(filepath.Join(d, ".cargo", name))
			if errors.Is(err, errNoConfig) {
				continue
			}
			if err != nil || cargoConfigNamesPrograms(data, sub) {
				return true
			}
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

func cargoConfigNamesPrograms(data []byte, sub string) bool {
	var cfg map[string]any
	if err := toml.Unmarshal(data, &cfg); err != nil {
		return true
	}
	table := func(v any) map[string]any { m, _ := v.(map[string]any); return m }
	build := table(cfg["build"])
	for _, k := range []string{"rustc", "rustc-wrapper", "rustc-workspace-wrapper", "rustdoc"} {
		if _, ok := build[k]; ok {
			return true
		}
	}
	for _, t := range table(cfg["target"]) {
		tt := table(t)
		for _, k := range []string{"linker", "runner", "rustflags", "rustdocflags"} {
			if _, ok := tt[k]; ok {
				return true
			}
		}
	}
	if _, ok := table(cfg["alias"])[sub]; ok {
		return true
	}
	for k := range table(cfg["env"]) {
		if !cargoEnvKnown()[k] {
			return true
		}
	}
	for _, k := range []string{"credential-provider", "registries", "registry", "source", "patch", "paths"} {
		if _, ok := cfg[k]; ok {
			return true
		}
	}
	if _, ok := table(cfg["net"])["git-fetch-with-cli"]; ok {
		return true
	}
	return false
}
