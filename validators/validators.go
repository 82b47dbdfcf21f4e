package validators

import (
	"errors"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/vtexec/vtexec/workspace"
)

// Validator checks one invocation of one program. A nil error allows it;
// otherwise the error is a *Finding.
type Validator interface {
	Check(c *Call) error
}

// ValidatorFunc adapts a function to Validator.
type ValidatorFunc func(c *Call) error

// Check calls f.
func (f ValidatorFunc) Check(c *Call) error { return f(c) }

// The catalogue is built on first use, a program's registration at a
// time, not at init: a process that checks one command pays only for the
// tables of the programs it names.
var (
	regMu    sync.RWMutex
	registry map[string]Validator
	entries  map[string]func() Entry
)

// lazy is a value made on first use rather than at init.
type lazy[T any] struct {
	once sync.Once
	make func() T
	v    T
}

func (l *lazy[T]) get() T {
	l.once.Do(func() { l.v = l.make() })
	return l.v
}

// registration adds a group of programs to the catalogue, once.
type registration struct {
	once sync.Once
	add  func()
}

func (r *registration) do() { r.once.Do(r.add) }

var (
	regAwk       = registration{add: registerAwk}
	regChmod     = registration{add: registerChmod}
	regCmp       = registration{add: registerCmp}
	regComm      = registration{add: registerComm}
	regCp        = registration{add: registerCp}
	regCut       = registration{add: registerCut}
	regDate      = registration{add: registerDate}
	regDiff      = registration{add: registerDiff}
	regDu        = registration{add: registerDu}
	regFile      = registration{add: registerFile}
	regFind      = registration{add: registerFind}
	regGit       = registration{add: registerGit}
	regGo        = registration{add: registerGo}
	regGrep      = registration{add: registerGrep}
	regJq        = registration{add: registerJq}
	regLn        = registration{add: registerLn}
	regMkdir     = registration{add: registerMkdir}
	regMv        = registration{add: registerMv}
	regNpm       = registration{add: registerNpm}
	regNl        = registration{add: registerNl}
	regPathnames = registration{add: registerPathnames}
	regPrintf    = registration{add: registerPrintf}
	regPyTools   = registration{add: registerPyTools}
	regQueries   = registration{add: registerQueries}
	regRg        = registration{add: registerRg}
	regRuff      = registration{add: registerRuff}
	regRm        = registration{add: registerRm}
	regSed       = registration{add: registerSed}
	regSimple    = registration{add: registerSimple}
	regSort      = registration{add: registerSort}
	regStat      = registration{add: registerStat}
	regTee       = registration{add: registerTee}
	regTest      = registration{add: registerTest}
	regTouch     = registration{add: registerTouch}
	regTr        = registration{add: registerTr}
	regTree      = registration{add: registerTree}
	regTrivial   = registration{add: registerTrivial}
	regUniq      = registration{add: registerUniq}
	regWrappers  = registration{add: registerWrappers}
)

// programEntry is one allowlisted program: its name, the registration
// that adds its validator and its profile.
type programEntry struct {
	name    string
	reg     *registration
	profile Profile
}

// programs names every allowlisted program, sorted, with the
// registration that adds its validator (TestProgramsTable holds it to
// them) and its profile: what the other layers must know of it (see
// Profile). Adding a program is a registration and a line here.
var programs = []programEntry{
	{"[", &regTest, Profile{}},
	{"awk", &regAwk, Profile{}},
	{"b2sum", &regSimple, Profile{}},
	{"basename", &regPathnames, Profile{}},
	{"black", &regPyTools, Profile{PythonProgram: true}},
	{"cargo", &regQueries, Profile{}},
	{"cat", &regSimple, Profile{CopiesInput: true}},
	{"chmod", &regChmod, Profile{}},
	{"cmp", &regCmp, Profile{Probe: ProbeRig{After: []string{"f1", "2"}}}},
	{"comm", &regComm, Profile{Probe: ProbeRig{After: []string{"f1", "2"}}}},
	{"cp", &regCp, Profile{RearrangesTree: true}},
	{"cut", &regCut, Profile{Probe: ProbeRig{Before: []string{"-f1"}, Instead: []string{"-b", "-c", "-f", "--bytes", "--characters", "--fields"}}}},
	{"date", &regDate, Profile{Probe: ProbeRig{NoCount: true}}},
	{"df", &regSimple, Profile{}},
	{"diff", &regDiff, Profile{Probe: ProbeRig{After: []string{"f1", "2"}}}},
	{"dirname", &regPathnames, Profile{}},
	{"du", &regDu, Profile{}},
	{"echo", &regSimple, Profile{}},
	{"env", &regWrappers, Profile{}},
	{"false", &regTrivial, Profile{}},
	{"file", &regFile, Profile{Probe: ProbeRig{After: []string{"f1"}}}},
	{"find", &regFind, Profile{Arities: findArities, Probe: ProbeRig{Parser: FindParser}}},
	{"flake8", &regPyTools, Profile{PythonProgram: true, Probe: ProbeRig{Before: []string{"-j1"}, Instead: []string{"-j", "--jobs"}}}},
	{"git", &regGit, Profile{WritesGitDir: true, ConfiguredByRepository: true, SubcommandArgs: GitSubcommandArgs,
		Arities: gitArities, Probe: ProbeRig{Parser: GitParser}}},
	{"go", &regGo, Profile{GoToolchain: true}},
	{"gofmt", &regSimple, Profile{}},
	{"grep", &regGrep, Profile{}},
	{"head", &regSimple, Profile{}},
	{"jq", &regJq, Profile{Arities: jqArities, Probe: ProbeRig{Parser: JQParser}}},
	{"ln", &regLn, Profile{}},
	{"ls", &regSimple, Profile{}},
	{"make", &regQueries, Profile{}},
	{"md5sum", &regSimple, Profile{}},
	{"mkdir", &regMkdir, Profile{}},
	{"mv", &regMv, Profile{RearrangesTree: true}},
	{"mypy", &regPyTools, Profile{PythonProgram: true}},
	{"nice", &regWrappers, Profile{}},
	{"nl", &regNl, Profile{}},
	{"node", &regQueries, Profile{}},
	{"nohup", &regWrappers, Profile{}},
	{"npm", &regNpm, Profile{}},
	{"nproc", &regSimple, Profile{}},
	{"numfmt", &regSimple, Profile{}},
	{"pip", &regQueries, Profile{PythonProgram: true}},
	{"pip3", &regQueries, Profile{PythonProgram: true}},
	{"printenv", &regSimple, Profile{}},
	{"printf", &regPrintf, Profile{}},
	{"pwd", &regSimple, Profile{PrintsCwd: true}},
	{"python", &regQueries, Profile{}},
	{"python3", &regQueries, Profile{}},
	{"readlink", &regPathnames, Profile{}},
	{"realpath", &regPathnames, Profile{}},
	{"rg", &regRg, Profile{Probe: ProbeRig{Before: []string{"-j1"}}}},
	{"rm", &regRm, Profile{}},
	{"ruff", &regRuff, Profile{}},
	{"rustc", &regQueries, Profile{}},
	{"sed", &regSed, Profile{}},
	{"seq", &regTrivial, Profile{Arities: func() []FlagArity { return specArities("seq", nil, seqSpec, false) }}},
	{"sha1sum", &regSimple, Profile{}},
	{"sha224sum", &regSimple, Profile{}},
	{"sha256sum", &regSimple, Profile{}},
	{"sha384sum", &regSimple, Profile{}},
	{"sha512sum", &regSimple, Profile{}},
	{"sleep", &regSimple, Profile{}},
	{"sort", &regSort, Profile{}},
	{"stat", &regStat, Profile{}},
	{"stdbuf", &regWrappers, Profile{}},
	{"tac", &regSimple, Profile{}},
	{"tail", &regSimple, Profile{}},
	{"tee", &regTee, Profile{}},
	{"test", &regTest, Profile{}},
	{"timeout", &regWrappers, Profile{LeavesProcessGroup: timeoutLeavesGroup}},
	{"touch", &regTouch, Profile{}},
	{"tr", &regTr, Profile{}},
	{"tree", &regTree, Profile{Arities: func() []FlagArity { return specArities("tree", nil, treeSpec, true) },
		// Dates as years: -D prints times, which change between the probes.
		Probe: ProbeRig{Before: []string{"--timefmt=%Y"}, Instead: []string{"--timefmt"}}}},
	{"true", &regTrivial, Profile{}},
	{"uname", &regSimple, Profile{}},
	{"uniq", &regUniq, Profile{}},
	{"wc", &regSimple, Profile{}},
	{"which", &regSimple, Profile{}},
	{"xargs", &regWrappers, Profile{Probe: ProbeRig{Before: []string{"-a", "f1"}}}},
}

// registrationOf returns the registration that adds name, or nil.
func registrationOf(name string) *registration {
	i, found := sort.Find(len(programs), func(i int) int { return strings.Compare(name, programs[i].name) })
	if !found {
		return nil
	}
	return programs[i].reg
}

// build fills the whole catalogue.
func build() {
	for _, p := range programs {
		p.reg.do()
	}
}

// register adds a validator with code of its own; entry describes it for
// the catalogue.
func register(name string, v Validator, entry func() Entry) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("validators: duplicate " + name)
	}
	if registry == nil {
		registry = map[string]Validator{}
		entries = map[string]func() Entry{}
	}
	registry[name] = v
	entries[name] = entry
}

func registerSpec(s *Spec) {
	register(s.Name, s, s.Entry)
}

// Canonical is argv in the form its program parses the way its validator
// does (see Spec.Canonical, gitCanonical, wrapperCanonical), with the
// flags vtexec adds so the program looks for nothing above the workspace
// (Spec.Adjust); argv itself for a program validated by code of its own,
// or not allowlisted. ws may be nil: then nothing is added, and a
// wrapper's command is left as it is.
func Canonical(name string, argv []string, ws *workspace.Workspace) []string {
	v, ok := Lookup(name)
	if !ok {
		return argv
	}
	// A wrapper first: its spec's own form would leave the command it
	// runs as typed.
	if c, ok := v.(commandCanonicalizer); ok {
		if ws == nil {
			return argv
		}
		return c.canonicalWithCommand(argv, ws)
	}
	if w, ok := v.(Wrapper); ok {
		if ws == nil {
			return argv
		}
		return wrapperCanonical(w, argv, ws)
	}
	if c, ok := v.(canonicalizer); ok {
		return c.canonical(argv, ws)
	}
	return argv
}

// commandCanonicalizer is a wrapper whose command is not the tail of its
// argv (find -exec COMMAND ... ;): it writes its whole argv, the command
// included, in canonical form.
type commandCanonicalizer interface {
	canonicalWithCommand(argv []string, ws *workspace.Workspace) []string
}

// canonicalizer is a validator that knows its program's canonical form.
type canonicalizer interface {
	canonical(argv []string, ws *workspace.Workspace) []string
}

// wrapperCanonical is a wrapper's command in canonical form: its own
// options, and the command it runs (the tail of argv) by that command's
// own rule.
func wrapperCanonical(w Wrapper, argv []string, ws *workspace.Workspace) []string {
	inner, err := w.Unwrap(&Call{Argv: argv, WS: ws})
	var f *Finding
	if len(inner) == 0 || (err != nil && !(errors.As(err, &f) && f.Ask)) || len(inner) >= len(argv) ||
		!slices.Equal(argv[len(argv)-len(inner):], inner) {
		return argv
	}
	head := slices.Clone(argv[:len(argv)-len(inner)])
	if c, ok := w.(canonicalizer); ok {
		head = c.canonical(head, ws) // the wrapper's own options
	}
	return append(head, Canonical(filepath.Base(inner[0]), inner, ws)...)
}

// Lookup returns the validator for a program name, if it is allowlisted.
func Lookup(name string) (Validator, bool) {
	r := registrationOf(name)
	if r == nil {
		return nil, false
	}
	r.do()
	regMu.RLock()
	defer regMu.RUnlock()
	v, ok := registry[name]
	return v, ok
}

// Names returns the allowlisted program names, sorted.
func Names() []string {
	names := make([]string, len(programs))
	for i, p := range programs {
		names[i] = p.name
	}
	return names
}
