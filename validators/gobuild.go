package validators

import (
	"strings"
	"sync"
)

// go build and go vet compile the packages and run no code of theirs (no
// build scripts: cgo runs the C compiler with the flags Go's allowlist
// lets a #cgo line give), so they run without asking, with the build
// flags that name no program: -toolexec and -exec run one, and the
// compiler's and linker's own flags are allowed only where they are
// known to name none (-ldflags "-s -w -X main.v=1", -gcflags "all=-N -l").
// go clean of the caches, go mod tidy/verify/why/graph and go fmt are
// the same kind. They run with vtexec's go preset (no download, no
// toolchain switch) in the kernel box.

// goBuildFlags are the build flags go build, go vet and go fmt share.
func goBuildFlags() []Flag {
	return []Flag{
		{Short: "a"}, {Short: "n"}, {Short: "p", Arg: Number}, {Long: "race"}, {Long: "msan"}, {Long: "asan"},
		{Long: "cover"}, {Long: "covermode", Arg: Text}, {Long: "coverpkg", Arg: Text}, {Short: "v"}, {Long: "work"},
		{Short: "x"}, {Long: "buildmode", Arg: Text}, {Long: "buildvcs", Arg: Text, Optional: true}, {Long: "compiler", Arg: Text},
		{Long: "installsuffix", Arg: NamePart}, {Long: "linkshared"}, {Long: "mod", Arg: Text}, {Long: "modcacherw"},
		{Long: "modfile", Arg: ReadPath}, {Long: "overlay", Arg: ReadPath}, {Long: "pgo", Arg: Text},
		{Long: "tags", Arg: Text}, {Long: "trimpath"}, {Short: "C", Arg: ReadPath}, {Long: "json"},
		{Long: "gcflags", Arg: Text}, {Long: "ldflags", Arg: Text}, {Long: "asmflags", Arg: Text},
		{Long: "gccgoflags", Arg: Text, Forbid: "passes flags to gccgo, which can name programs"},
		{Long: "pkgdir", Arg: Text, Forbid: "installs packages in a directory of the caller's choosing"},
		{Long: "toolexec", Arg: Text, Forbid: "runs every compiler and linker step through a program of the caller's choosing"},
		{Long: "exec", Arg: Text, Forbid: "runs the built binaries through a program of the caller's choosing"},
	}
}

var goBuildSpec = sync.OnceValue(func() *Spec {
	return &Spec{Name: "go build", Doc: "[PACKAGES]: import paths, patterns (./...) or directories inside the workspace", GoFlags: true,
		Operands: checkGoBuild, Flags: append(goBuildFlags(), Flag{Short: "o", Arg: Text})}
})

var goVetSpec = sync.OnceValue(func() *Spec {
	return &Spec{Name: "go vet", Doc: "[PACKAGES]: import paths, patterns (./...) or directories inside the workspace", GoFlags: true,
		Operands: checkGoBuild, Flags: append(goBuildFlags(), Flag{Short: "c", Arg: Number},
			Flag{Long: "vettool", Arg: Text, Forbid: "runs a program of the caller's choosing as the vet tool"})}
})

var goFmtSpec = &Spec{Name: "go fmt", Doc: "[PACKAGES]: their .go files are rewritten, so they must be writable", GoFlags: true,
	Operands: checkGoFmt, Flags: []Flag{{Short: "n"}, {Short: "x"}, {Long: "mod", Arg: Text}, {Long: "modfile", Arg: ReadPath}}}

var goCleanSpec = &Spec{Name: "go clean", Doc: "-cache, -testcache or -fuzzcache alone: the build caches, which are vtexec's own", GoFlags: true,
	Operands: checkGoClean, Flags: []Flag{{Long: "cache"}, {Long: "testcache"}, {Long: "fuzzcache"}}}

var goModSpecs = sync.OnceValue(func() map[string]*Spec {
	return map[string]*Spec{
		"tidy": {Name: "go mod tidy", Doc: "no operands", GoFlags: true, Operands: checkGoModules, Flags: []Flag{
			{Short: "v"}, {Short: "e"}, {Short: "x"}, {Long: "go", Arg: Text}, {Long: "compat", Arg: Text}, {Long: "diff"}}},
		"verify": {Name: "go mod verify", Doc: "no operands", GoFlags: true, Operands: checkGoModules},
		"why": {Name: "go mod why", Doc: "PACKAGES: import paths", GoFlags: true, Operands: checkGoModules, Flags: []Flag{
			{Short: "m"}, {Long: "vendor"}}},
		"graph": {Name: "go mod graph", Doc: "no operands", GoFlags: true, Operands: checkGoModules, Flags: []Flag{
			{Long: "go", Arg: Text}, {Short: "x"}}},
	}
})

// checkGoBuild checks the packages, the compiler's and linker's flags,
// and the modules go reads.
func checkGoBuild(c *Call, a *Args) error {
	if err := goPackages(c, a); err != nil {
		return err
	}
	for _, out := range a.Values("o") {
		// go build -o /dev/null builds and writes nothing.
		if out != "/dev/null" {
			if err := c.WritePath(out); err != nil {
				return err
			}
		}
	}
	for _, flag := range []string{"gcflags", "ldflags", "asmflags"} {
		for _, v := range a.Values(flag) {
			if !toolFlagsKnown(flag, v) {
				return ErrUnlisted // flags vtexec does not know may name a program or a file
			}
		}
	}
	if v := a.Values("compiler"); len(v) > 0 && v[len(v)-1] != "gc" {
		return ErrUnlisted
	}
	return goModulesInside(c.Program(), c.WS)
}

// toolFlagsKnown reports whether a -gcflags, -ldflags or -asmflags value
// ([PATTERN=]FLAGS) holds only flags known to name no program or file.
func toolFlagsKnown(flag, value string) bool {
	if i := strings.IndexByte(value, '='); i >= 0 && !strings.HasPrefix(value, "-") {
		value = value[i+1:] // the package pattern (all=, ./...=)
	}
	known := map[string]map[string]bool{
		"gcflags":  {"-N": true, "-l": true, "-m": true, "-m=2": true, "-S": true, "-B": true, "-race": true},
		"ldflags":  {"-s": true, "-w": true},
		"asmflags": {},
	}[flag]
	words := strings.Fields(value)
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case known[w]:
		case flag == "ldflags" && (w == "-X" || w == "-buildid") && i+1 < len(words):
			i++ // a string's value, or the build ID
		case flag == "ldflags" && (strings.HasPrefix(w, "-X=") || strings.HasPrefix(w, "-buildid=")):
		default:
			return false
		}
	}
	return true
}

// checkGoFmt: go fmt rewrites the .go files of the packages.
func checkGoFmt(c *Call, a *Args) error {
	if err := goPackages(c, a); err != nil {
		return err
	}
	ops := a.Operands
	if len(ops) == 0 {
		ops = []string{"."}
	}
	for _, op := range ops {
		dir := strings.TrimSuffix(strings.TrimSuffix(op, "/..."), "...")
		if !strings.HasPrefix(op, ".") && !strings.HasPrefix(op, "/") {
			return ErrUnlisted // an import path: its directory is go's to find
		}
		if dir == "" {
			dir = "."
		}
		if err := checkFilesWritten(c, dir, goSource, goIgnoredDir); err != nil {
			return err
		}
	}
	return goModulesInside(c.Program(), c.WS)
}

func goSource(name string) bool {
	return strings.HasSuffix(name, ".go") && !strings.HasPrefix(name, ".")
}

func checkGoClean(c *Call, a *Args) error {
	if len(a.Operands) > 0 || len(a.Flags) == 0 {
		return ErrUnlisted // go clean of packages removes files: a person decides
	}
	return nil
}

func checkGoModules(c *Call, a *Args) error { return goModulesInside(c.Program(), c.WS) }

// checkGofmt: with -w, gofmt rewrites the files it is given and every
// .go file below a directory it is given.
func checkGofmt(c *Call, a *Args) error {
	if !a.Has("w") {
		return ReadPaths(c, a)
	}
	for _, op := range a.Operands {
		if err := checkFilesWritten(c, op, goSource, nil); err != nil {
			return err
		}
	}
	return nil
}

// goIgnoredDir is a directory the go command's package patterns leave
// out.
func goIgnoredDir(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata"
}
