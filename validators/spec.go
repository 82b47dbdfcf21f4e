package validators

import (
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/vtexec/vtexec/workspace"
)

// ArgKind is what a flag's value is.
type ArgKind int

const (
	// NoArg flags take no value.
	NoArg ArgKind = iota
	// Text is a value vtexec need not interpret (a format, a glob, a name).
	Text
	// Number must be a decimal integer, optionally signed or with a
	// size suffix (5, -5, +5, 10K).
	Number
	// ReadPath is a file that will be read: it must be inside the workspace.
	ReadPath
	// WritePath is a file that will be written: inside and not protected.
	WritePath
	// NamePart is text the program builds a file name from (a backup
	// suffix, a patch file's suffix or version): it must not hold a "/",
	// be "." or "..", or be empty, so the name stays where the program
	// puts it.
	NamePart
)

// Flag describes one option of a program.
type Flag struct {
	Short string // one character, or ""
	Long  string // without the leading "--", or ""
	Arg   ArgKind
	// Optional means the value may only be attached (--color=auto); a
	// following word is never taken as the value.
	Optional bool
	// Forbid, when set, refuses the flag with this reason.
	Forbid string
	// Pattern marks a flag that supplies the pattern or script (grep -e,
	// sed -e), so the first operand is not one.
	Pattern bool
}

// Name returns the flag's display name, preferring the long form.
func (f *Flag) Name() string {
	if f.Long != "" {
		return "--" + f.Long
	}
	return "-" + f.Short
}

// bothNames is "-n/--lines" for a flag with both spellings, else Name.
func (f *Flag) bothNames() string {
	if f.Short != "" && f.Long != "" {
		return "-" + f.Short + "/--" + f.Long
	}
	return f.Name()
}

// FlagUse is one occurrence of a flag on the command line.
type FlagUse struct {
	Flag  *Flag
	As    string // how it was written: "-n", "--lines"
	Value string
}

// Args is a command line split into flags and operands.
type Args struct {
	Flags    []FlagUse
	Operands []string

	// joined maps the index of an option word that took the next word
	// as its value to the one word that says the same: --name=value;
	// joinedShort does for short options: -nVALUE.
	joined      map[int]string
	joinedShort map[int]string
}

func (a *Args) join(i int, word string) {
	if a.joined == nil {
		a.joined = map[int]string{}
	}
	a.joined[i] = word
}

// Has reports whether a flag with the given long or short name was used.
func (a *Args) Has(name string) bool {
	for _, u := range a.Flags {
		if u.Flag.Long == name || u.Flag.Short == name {
			return true
		}
	}
	return false
}

// Values returns the values of every use of the named flag, in order.
func (a *Args) Values(name string) []string {
	var out []string
	for _, u := range a.Flags {
		if u.Flag.Long == name || u.Flag.Short == name {
			out = append(out, u.Value)
		}
	}
	return out
}

// Spec is a declarative validator.
type Spec struct {
	Name string
	// Doc says what the operands are, for the catalogue.
	Doc   string
	Flags []Flag
	// NumberShort accepts -NUM as a count (head -5).
	NumberShort bool
	// NoPermute stops flag parsing at the first operand, as POSIX getopt
	// does; GNU programs permute and keep parsing flags after operands.
	NoPermute bool
	// GoFlags parses as Go's flag package does: each word is one flag,
	// -name or --name, with its value after "=" or in the next word;
	// parsing stops at the first operand. One-letter names are Short.
	GoFlags bool
	// Operands checks the operands (and anything else) once flags parsed.
	Operands func(c *Call, a *Args) error
	// Adjust, if set, adds to the canonical argv the flags that keep the
	// program from looking for files of its own above the workspace (ws
	// is nil when there is none to look from).
	Adjust func(argv []string, ws *workspace.Workspace) []string

	// short and long index Flags, built by index on first use.
	indexOnce sync.Once
	short     map[string]*Flag
	long      map[string]*Flag
}

// Canonical returns argv with every long option that took the next word
// as its value written as one word, --name=value (-name=value for Go's
// flag package): the form no parser splits differently. Where the
// program would disagree with the spec about that option taking a value,
// it now fails on the =value instead of reading the value as an operand
// or an option. Anything that does not parse is returned as it is, for
// Check to refuse.
func (s *Spec) Canonical(argv []string) []string { return s.joinValues(argv, false) }

// canonical is Canonical with Adjust applied: the form vtexec runs.
func (s *Spec) canonical(argv []string, ws *workspace.Workspace) []string {
	argv = s.Canonical(argv)
	if s.Adjust != nil {
		argv = s.Adjust(argv, ws)
	}
	return argv
}

// joinValues is Canonical, with short options' values attached too
// (-nVALUE) when shorts is set: for parsers known to read an attached
// value exactly as a separate one (git's).
func (s *Spec) joinValues(argv []string, shorts bool) []string {
	if len(argv) < 2 {
		return argv
	}
	a, err := s.Parse(argv[1:])
	if err != nil || (len(a.joined) == 0 && (!shorts || len(a.joinedShort) == 0)) {
		return argv
	}
	out := []string{argv[0]}
	args := argv[1:]
	for i := 0; i < len(args); i++ {
		word, ok := a.joined[i]
		if !ok && shorts {
			word, ok = a.joinedShort[i]
		}
		if ok {
			out = append(out, word)
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// Check parses argv[1:] and checks every flag value and operand.
func (s *Spec) Check(c *Call) error {
	a, err := s.Parse(c.Argv[1:])
	if err != nil {
		return err
	}
	for _, u := range a.Flags {
		if err := c.checkValue(u); err != nil {
			return err
		}
	}
	if s.Operands == nil {
		if len(a.Operands) > 0 {
			return refuse(CodeBadUsage, "run it without operands", "%s takes no operands, got %q", s.Name, a.Operands[0])
		}
		return nil
	}
	return s.Operands(c, a)
}

// index builds short and long once; every reader of them calls it first.
func (s *Spec) index() {
	s.indexOnce.Do(func() {
		s.short = map[string]*Flag{}
		s.long = map[string]*Flag{}
		for i := range s.Flags {
			f := &s.Flags[i]
			if f.Short != "" {
				s.short[f.Short] = f
			}
			if f.Long != "" {
				s.long[f.Long] = f
			}
		}
	})
}

// Parse splits args into flags and operands the way GNU getopt_long does,
// except that abbreviated long options are refused.
func (s *Spec) Parse(args []string) (*Args, error) {
	s.index()
	a := &Args{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			a.Operands = append(a.Operands, args[i+1:]...)
			return a, nil
		case s.GoFlags && len(arg) > 1 && arg[0] == '-':
			n, err := s.parseGo(a, args, i)
			if err != nil {
				return nil, err
			}
			i += n
		case strings.HasPrefix(arg, "--"):
			n, err := s.parseLong(a, args, i)
			if err != nil {
				return nil, err
			}
			i += n
		case len(arg) > 1 && arg[0] == '-':
			n, err := s.parseShort(a, args, i)
			if err != nil {
				return nil, err
			}
			i += n
		default:
			a.Operands = append(a.Operands, arg)
			if s.NoPermute || s.GoFlags {
				a.Operands = append(a.Operands, args[i+1:]...)
				return a, nil
			}
		}
	}
	return a, nil
}

// parseGo reads one flag the way Go's flag package does.
func (s *Spec) parseGo(a *Args, args []string, i int) (int, error) {
	word := strings.TrimPrefix(args[i][1:], "-")
	name, value, hasValue := strings.Cut(word, "=")
	if name == "" || name[0] == '-' {
		return 0, refuse(CodeBadUsage, "write flags as -name or -name=value", "%s: bad flag syntax %q", s.Name, args[i])
	}
	f, ok := s.long[name]
	if len(name) == 1 {
		f, ok = s.short[name]
	}
	if !ok {
		return 0, s.unknownShort(name)
	}
	if f.Forbid != "" {
		return 0, s.forbidden(f, "-"+name)
	}
	use := FlagUse{Flag: f, As: "-" + name}
	consumed := 0
	switch {
	case f.Arg == NoArg && hasValue:
		if _, err := strconv.ParseBool(value); err != nil {
			return 0, refuse(CodeBadUsage, "write -"+name+" alone, or -"+name+"=true or =false", "%s: -%s takes true or false, got %q", s.Name, name, value)
		}
		use.Value = value
	case f.Arg == NoArg:
	case hasValue:
		use.Value = value
	case i+1 < len(args):
		use.Value = args[i+1]
		consumed = 1
		a.join(i, "-"+name+"="+args[i+1])
	default:
		return 0, refuse(CodeBadUsage, "give the flag its value", "%s: -%s needs a value", s.Name, name)
	}
	a.Flags = append(a.Flags, use)
	return consumed, nil
}

func (s *Spec) parseLong(a *Args, args []string, i int) (int, error) {
	name, value, hasValue := strings.Cut(args[i][2:], "=")
	f, ok := s.long[name]
	if !ok {
		return 0, s.unknownLong(name)
	}
	if f.Forbid != "" {
		return 0, s.forbidden(f, "--"+name)
	}
	use := FlagUse{Flag: f, As: "--" + name}
	consumed := 0
	switch {
	case f.Arg == NoArg && hasValue:
		return 0, refuse(CodeBadUsage, "drop the =value", "%s: --%s takes no value", s.Name, name)
	case f.Arg == NoArg:
	case hasValue:
		use.Value = value
	case f.Optional:
	case i+1 < len(args):
		use.Value = args[i+1]
		consumed = 1
		a.join(i, "--"+name+"="+args[i+1])
	default:
		return 0, refuse(CodeBadUsage, "give the flag its value", "%s: --%s needs a value", s.Name, name)
	}
	a.Flags = append(a.Flags, use)
	return consumed, nil
}

func (s *Spec) parseShort(a *Args, args []string, i int) (int, error) {
	cluster := args[i][1:]
	if s.NumberShort && isDigits(cluster) {
		a.Flags = append(a.Flags, FlagUse{Flag: &numberFlag, As: "-" + cluster, Value: cluster})
		return 0, nil
	}
	for j := 0; j < len(cluster); j++ {
		ch := cluster[j : j+1]
		f, ok := s.short[ch]
		if !ok {
			return 0, s.unknownShort(ch)
		}
		if f.Forbid != "" {
			return 0, s.forbidden(f, "-"+ch)
		}
		use := FlagUse{Flag: f, As: "-" + ch}
		if f.Arg == NoArg {
			a.Flags = append(a.Flags, use)
			continue
		}
		if rest := cluster[j+1:]; rest != "" {
			use.Value = rest
			a.Flags = append(a.Flags, use)
			return 0, nil
		}
		if f.Optional {
			a.Flags = append(a.Flags, use)
			return 0, nil
		}
		if i+1 >= len(args) {
			return 0, refuse(CodeBadUsage, "give the flag its value", "%s: -%s needs a value", s.Name, ch)
		}
		use.Value = args[i+1]
		a.Flags = append(a.Flags, use)
		if a.joinedShort == nil {
			a.joinedShort = map[int]string{}
		}
		a.joinedShort[i] = args[i] + args[i+1]
		return 1, nil
	}
	return 0, nil
}

// numberFlag stands for -NUM on programs with NumberShort.
var numberFlag = Flag{Short: "#", Arg: Number}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (s *Spec) forbidden(f *Flag, as string) error {
	return refuse(CodeForbiddenFlag, "drop "+as+"; "+s.Name+" may not use it", "%s %s is refused: %s", s.Name, as, f.Forbid)
}

func (s *Spec) unknownLong(name string) error {
	s.index()
	for long, f := range s.long {
		if strings.HasPrefix(long, name) && f.Forbid == "" {
			return refuse(CodeUnknownFlag, "write long options in full, e.g. --"+long,
				"%s: --%s is an abbreviation, which vtexec does not accept", s.Name, name)
		}
	}
	return refuse(CodeUnknownFlag, "allowed flags for "+s.Name+": "+s.allowedList(), "%s: unknown flag --%s", s.Name, name)
}

func (s *Spec) unknownShort(ch string) error {
	return refuse(CodeUnknownFlag, "allowed flags for "+s.Name+": "+s.allowedList(), "%s: unknown flag -%s", s.Name, ch)
}

func (s *Spec) allowedList() string {
	var names []string
	for _, f := range s.Flags {
		if f.Forbid != "" {
			continue
		}
		names = append(names, f.bothNames())
	}
	sort.Strings(names)
	return quoteList(names)
}

func isNumber(v string) bool {
	v = strings.TrimLeft(v, "+-")
	v = strings.TrimRight(v, "bkKMGTPEZYRQiB")
	_, err := strconv.ParseUint(v, 10, 64)
	return err == nil
}
