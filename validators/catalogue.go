package validators

import "sort"

// Entry describes one allowlisted program for people: what its operands
// are, which flags it accepts, and which it refuses and why. It is made
// from the same data the validator checks with.
type Entry struct {
	Program  string    `json:"program"`
	Operands string    `json:"operands"`
	Allowed  []string  `json:"allowed_flags"`
	Refused  []Refusal `json:"refused_flags"`
}

// Refusal is a refused flag and the reason.
type Refusal struct {
	Flag   string `json:"flag"`
	Reason string `json:"reason"`
}

// Catalogue returns an entry for every allowlisted program, sorted.
func Catalogue() []Entry {
	build()
	var describe []func() Entry
	regMu.RLock()
	for _, name := range Names() {
		describe = append(describe, entries[name])
	}
	regMu.RUnlock()
	out := make([]Entry, 0, len(describe))
	for _, entry := range describe {
		out = append(out, entry())
	}
	return out
}

// Entry describes the spec for the catalogue.
func (s *Spec) Entry() Entry {
	e := Entry{Program: s.Name, Operands: s.Doc}
	if e.Operands == "" {
		e.Operands = "none"
	}
	e.addFlags(s.Flags)
	if s.NumberShort {
		e.Allowed = append(e.Allowed, "-NUM")
	}
	sort.Strings(e.Allowed)
	sort.Slice(e.Refused, func(i, j int) bool { return e.Refused[i].Flag < e.Refused[j].Flag })
	return e
}

// addFlags files each flag under allowed or refused, named with both its
// spellings and the kind of value it takes.
func (e *Entry) addFlags(flags []Flag) {
	for _, f := range flags {
		name := f.bothNames()
		if v := argDoc(f); v != "" {
			name += " " + v
		}
		if f.Forbid != "" {
			e.Refused = append(e.Refused, Refusal{Flag: name, Reason: f.Forbid})
		} else {
			e.Allowed = append(e.Allowed, name)
		}
	}
}

func argDoc(f Flag) string {
	doc := map[ArgKind]string{Text: "TEXT", Number: "N", ReadPath: "FILE(read, confined)", WritePath: "FILE(written, confined)",
		NamePart: "NAME(part of a file name, no /)"}[f.Arg]
	if doc != "" && f.Optional {
		return "[=" + doc + "]"
	}
	return doc
}
