package validators

import "sort"

// FlagArity is how a validator parses one spelling of one flag: how many
// of the following words it takes as values, and whether a value may be
// attached instead (--name=value, -nVALUE). The flag-arity probe
// (tests/arity) checks each against the installed program.
type FlagArity struct {
	Program string
	// Sub is git's subcommand, and sub-subcommand (stash show); empty
	// for git's own options and for other programs.
	Sub []string
	// Name is the spelling: "-n", "--lines", find's "-name", or "-NUM"
	// for a program that reads -5 as a count.
	Name string
	// Next is how many following words are taken as values when none is
	// attached (jq --arg takes 2).
	Next int
	// Attach reports whether a value may be attached to the spelling.
	Attach bool
	Kind   ArgKind
	// Forbid is the validator's reason for refusing the flag, or "".
	Forbid string
	// Probe is how the arity probe runs the program.
	Probe ProbeRig
}

// FlagArities lists every spelling of every flag the validators know,
// sorted by program, subcommand and name, each with its program's probe
// rig.
func FlagArities() []FlagArity {
	var out []FlagArity
	for _, name := range Names() {
		prof := ProfileOf(name)
		var fas []FlagArity
		if prof.Arities != nil {
			fas = prof.Arities()
		} else {
			v, _ := Lookup(name)
			switch s := v.(type) {
			case *Spec:
				fas = specArities(name, nil, s, s.GoFlags)
			case *wrapperSpec:
				fas = specArities(name, nil, &s.Spec, false)
			}
		}
		for i := range fas {
			fas[i].Probe = prof.Probe
		}
		out = append(out, fas...)
	}
	return out
}

// specArities lists a Spec's flags as Spec.Parse reads them; with
// nextWordShort (tree, Go's flag package), a short flag's value is never
// glued on: it is the next word.
func specArities(program string, sub []string, s *Spec, nextWordShort bool) []FlagArity {
	var out []FlagArity
	if s.NumberShort {
		out = append(out, FlagArity{Program: program, Sub: sub, Name: "-NUM", Kind: Number})
	}
	for _, f := range s.Flags {
		next := 0
		if f.Arg != NoArg && !f.Optional {
			next = 1
		}
		fa := FlagArity{Program: program, Sub: sub, Next: next, Attach: f.Arg != NoArg, Kind: f.Arg, Forbid: f.Forbid}
		if f.Short != "" {
			short := fa
			short.Name = "-" + f.Short
			if nextWordShort && f.Arg != NoArg {
				short.Attach = false
			}
			out = append(out, short)
		}
		if f.Long != "" {
			long := fa
			long.Name = "--" + f.Long
			out = append(out, long)
		}
	}
	return out
}

// gitArities lists git's own options (each stands alone: -C takes the
// next word, --name=value attaches) and every subcommand's flags.
func gitArities() []FlagArity {
	var out []FlagArity
	for _, f := range gitGlobalFlags {
		next := 0
		if f.Arg != NoArg && !f.Optional {
			next = 1
		}
		if f.Short != "" {
			out = append(out, FlagArity{Program: "git", Name: "-" + f.Short, Next: next, Kind: f.Arg, Forbid: f.Forbid})
		}
		if f.Long != "" {
			out = append(out, FlagArity{Program: "git", Name: "--" + f.Long, Next: next, Attach: f.Arg != NoArg, Kind: f.Arg, Forbid: f.Forbid})
		}
	}
	cmds := gitCommands()
	subs := make([]string, 0, len(cmds))
	for name := range cmds {
		subs = append(subs, name)
	}
	sort.Strings(subs)
	for _, name := range subs {
		cmd := cmds[name]
		out = append(out, specArities("git", []string{name}, cmd.spec, false)...)
		inner := make([]string, 0, len(cmd.subs))
		for sub := range cmd.subs {
			inner = append(inner, sub)
		}
		sort.Strings(inner)
		for _, sub := range inner {
			out = append(out, specArities("git", []string{name, sub}, cmd.subs[sub].spec, false)...)
		}
	}
	return out
}

// findArities lists find's leading options and the primaries of its
// expression; none attaches a value except -O's level.
func findArities() []FlagArity {
	out := []FlagArity{
		{Program: "find", Name: "-H"}, {Program: "find", Name: "-P"},
		{Program: "find", Name: "-L", Forbid: symlinkEscape},
		{Program: "find", Name: "-D", Next: 1, Kind: Text},
		{Program: "find", Name: "-O", Attach: true, Kind: Text},
	}
	primaries := findPrimaries.get()
	names := make([]string, 0, len(primaries))
	for name := range primaries {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := primaries[name]
		kind := NoArg
		if p.args > 0 {
			kind = Text
		}
		if p.path {
			kind = ReadPath
		}
		spelling := "-" + name
		if name == "(" || name == ")" || name == "!" || name == "," {
			spelling = name
		}
		out = append(out, FlagArity{Program: "find", Name: spelling, Next: p.args, Kind: kind, Forbid: p.forbid})
	}
	return out
}

// jqArities lists jq's options: long ones never attach a value, and a
// short one that takes a value (-L) may attach it.
func jqArities() []FlagArity {
	var out []FlagArity
	for _, o := range jqOptions {
		kind := NoArg
		if o.values > 0 {
			kind = Text
		}
		if o.file {
			kind = ReadPath
		}
		if o.short != 0 {
			out = append(out, FlagArity{Program: "jq", Name: "-" + string(o.short), Next: o.values, Attach: o.values > 0, Kind: kind, Forbid: o.forbid})
		}
		if o.long != "" {
			out = append(out, FlagArity{Program: "jq", Name: "--" + o.long, Next: o.values, Kind: kind, Forbid: o.forbid})
		}
	}
	return out
}
