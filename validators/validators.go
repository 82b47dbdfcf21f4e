package validators

import "sort"

// Validator checks one invocation of one program. A nil error allows it;
// otherwise the error is a *Finding.
type Validator interface {
	Check(c *Call) error
}

// ValidatorFunc adapts a function to Validator.
type ValidatorFunc func(c *Call) error

// Check calls f.
func (f ValidatorFunc) Check(c *Call) error { return f(c) }

var (
	registry = map[string]Validator{}
	entries  = map[string]func() Entry{}
)

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
	s.index()
	register(s.Name, s, s.Entry)
}

// Lookup returns the validator for a program name, if it is allowlisted.
func Lookup(name string) (Validator, bool) {
	v, ok := registry[name]
	return v, ok
}

// Names returns the allowlisted program names, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
