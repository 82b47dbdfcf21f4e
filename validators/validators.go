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

var registry = map[string]Validator{}

func register(name string, v Validator) {
	if _, dup := registry[name]; dup {
		panic("validators: duplicate " + name)
	}
	registry[name] = v
}

func registerSpec(s *Spec) {
	s.index()
	register(s.Name, s)
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
