package validators

import (
	"slices"
	"sort"
	"sync"
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

// The catalogue is built on first use, not at init: a process that checks
// one command should not pay for tables it never reads.
var (
	registry  map[string]Validator
	entries   map[string]func() Entry
	names     []string // sorted
	buildOnce sync.Once
)

// registrations fill the catalogue, each for its own programs.
var registrations = []func(){
	registerAwk, registerChmod, registerCmp, registerComm, registerCp, registerCut,
	registerDate, registerDiff, registerDu, registerFile, registerFind, registerGit,
	registerGrep, registerJq, registerLn, registerMkdir, registerMv,
	registerNl, registerPathnames, registerPrintf, registerRg, registerRm, registerSed,
	registerSimple, registerSort, registerStat, registerTee, registerTouch, registerTr,
	registerTree, registerTrivial, registerUniq, registerWrappers,
}

// build fills the catalogue once.
func build() {
	buildOnce.Do(func() {
		registry = map[string]Validator{}
		entries = map[string]func() Entry{}
		for _, add := range registrations {
			add()
		}
		for n := range registry {
			names = append(names, n)
		}
		sort.Strings(names)
	})
}

// register adds a validator with code of its own; entry describes it for
// the catalogue.
func register(name string, v Validator, entry func() Entry) {
	if _, dup := registry[name]; dup {
		panic("validators: duplicate " + name)
	}
	registry[name] = v
	entries[name] = entry
}

func registerSpec(s *Spec) {
	register(s.Name, s, s.Entry)
}

// Lookup returns the validator for a program name, if it is allowlisted.
func Lookup(name string) (Validator, bool) {
	build()
	v, ok := registry[name]
	return v, ok
}

// Names returns the allowlisted program names, sorted.
func Names() []string {
	build()
	return slices.Clone(names)
}
