package execpolicy

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/vtexec/vtexec/internal/fsutil"
	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/validators"
)

// Policy files are TOML, layered: user < project < project-local. Rules
// allow, ask or deny by program and subcommand prefix (or exact
// arguments); deny beats ask beats allow whatever the layer. Allow rules
// only lift an ask: they never approve a command a validator refused, nor
// inline code, which a person approves once or for a session only.

// Limits when neither the caller nor a policy sets them.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultMaxOutput = 64 << 10
)

// DefaultEscalateAfter is how many refusals that signal probing (see
// codes.IsSecurity) a session may have before vtexec allows nothing in
// it on its own.
const DefaultEscalateAfter = 3

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Decisions a rule may make.
const (
	RuleAllow = "allow"
	RuleAsk   = "ask"
	RuleDeny  = "deny"
)

// PolicyRule is one [[rule]] of a policy file, or a recorded approval.
type PolicyRule struct {
	// Program is a program name (matches argv[0]'s base name) or an
	// absolute path (matches the resolved program).
	Program string `toml:"program"`
	// Subcommand, if set, must equal the leading arguments.
	Subcommand []string `toml:"subcommand,omitempty"`
	// Argv, if set, must equal all the arguments after the program.
	Argv     []string `toml:"argv,omitempty"`
	Decision string   `toml:"decision"`
	Reason   string   `toml:"reason,omitempty"`
	// Network, on an allow rule, lets the commands it approves use the
	// network (npm install, go mod download); everything else runs
	// without it.
	Network bool `toml:"network,omitempty"`
	// Shaped marks a person's approval in the terms of its program's
	// approval shape (validators.ShapeOf): Subcommand are the words that
	// name what runs (the script, target, tool, package or module),
	// Flags the flags that change what it does, Operands the other
	// arguments (any, with AnyOperands), and Bound the digest of the
	// files that decide what the words run (validators.Binding). Each
	// must be the same for the rule to hold; flags that only change how
	// the program reports do not count.
	Shaped      bool     `toml:"shaped,omitempty"`
	Flags       []string `toml:"flags,omitempty"`
	Operands    []string `toml:"operands,omitempty"`
	AnyOperands bool     `toml:"any_operands,omitempty"`
	Bound       string   `toml:"bound,omitempty"`
	// Match and NotMatch are example commands checked when the file loads.
	Match    []string `toml:"match,omitempty"`
	NotMatch []string `toml:"not_match,omitempty"`

	File string `toml:"-"` // where the rule came from ("session" for session approvals)
	Line int    `toml:"-"`
}

// String is the rule as a person reads it: "allow make test".
func (r PolicyRule) String() string {
	words := append([]string{r.Decision, r.Program}, r.Subcommand...)
	if r.Shaped {
		words = append(words, r.Flags...)
		if r.AnyOperands {
			words = append(words, "(any operands)")
		} else {
			words = append(words, r.Operands...)
		}
		if r.Bound != "" {
			words = append(words, "(while its script is unchanged)")
		}
		return strings.Join(words, " ")
	}
	if r.Argv != nil {
		words = append(words, r.Argv...)
		if len(r.Argv) == 0 {
			words = append(words, "(no arguments)")
		}
	}
	return strings.Join(words, " ")
}

// Covers says in words what an approval recorded as the rule covers
// besides the command asked about.
func (r PolicyRule) Covers() string {
	switch {
	case r.Shaped:
		what := "this and other runs of " + strings.Join(append([]string{filepath.Base(r.Program)}, r.Subcommand...), " ")
		if len(r.Flags) > 0 {
			what += " with the same flags (" + strings.Join(r.Flags, " ") + ")"
		} else {
			what += " with no flags that change what it does"
		}
		what += "; flags that only change how it reports do not count"
		if r.AnyOperands {
			what += "; any operands (test paths)"
		} else if len(r.Operands) > 0 {
			what += "; the same operands (" + strings.Join(r.Operands, " ") + ")"
		} else {
			what += "; no operands"
		}
		if r.Bound != "" {
			what += "; only while the script it runs (package.json's scripts and .npmrc, the Makefile and what it includes, the justfile) is unchanged"
		}
		return what
	case r.Argv != nil:
		return "exactly these arguments"
	case len(r.Subcommand) > 0:
		return "every run of " + strings.Join(append([]string{filepath.Base(r.Program)}, r.Subcommand...), " ") + ", with any further arguments"
	}
	return "every run of " + filepath.Base(r.Program) + ", with any arguments"
}

// Where is "file:line", or the file alone.
func (r PolicyRule) Where() string {
	if r.Line > 0 {
		return fmt.Sprintf("%s:%d", r.File, r.Line)
	}
	return r.File
}

// Matches reports whether the rule applies to a part.
func (r PolicyRule) Matches(p Part) bool {
	if len(p.Argv) == 0 {
		return false
	}
	// An allow rule names exactly one program; a deny or ask rule also
	// holds for its other names (python3.11 for python3).
	strict := r.Decision != RuleAllow
	if strings.Contains(r.Program, "/") {
		if p.Program != r.Program && !(strict && sameProgramFile(p.Program, r.Program)) {
			return false
		}
	} else if base := filepath.Base(p.Argv[0]); base != r.Program &&
		!(strict && canonicalProgram(base) == canonicalProgram(r.Program)) {
		return false
	}
	if r.Shaped {
		return r.coversShaped(p)
	}
	args := p.Argv[1:]
	switch {
	case r.Argv != nil:
		return equalWords(args, r.Argv)
	case len(r.Subcommand) > 0:
		args = subcommandArgs(p.Argv)
		return len(args) >= len(r.Subcommand) && equalWords(args[:len(r.Subcommand)], r.Subcommand)
	}
	return true
}

// coversShaped reports whether a shaped rule covers the part: the same
// words, flags and operands (see PolicyRule.Shaped), and the files that
// decide what the words run unchanged.
func (r PolicyRule) coversShaped(p Part) bool {
	name := canonicalProgram(filepath.Base(p.Argv[0]))
	shape, ok := validators.ShapeOf(name)
	if !ok {
		return false
	}
	a := shape.Approve(subcommandArgs(p.Argv))
	rec := validators.Approval{Words: r.Subcommand, Flags: r.Flags, Operands: r.Operands, AnyOperands: r.AnyOperands}
	if !rec.Covers(a) {
		return false
	}
	if r.Bound == "" && !a.Binds {
		return true
	}
	return p.Dir != "" && r.Bound == validators.Binding(name, p.Dir, a)
}

// subcommandArgs returns the arguments from where subcommand words begin:
// after git's global options, else after the program name.
func subcommandArgs(argv []string) []string {
	if words := validators.ProfileOf(filepath.Base(argv[0])).SubcommandArgs; words != nil {
		return words(argv[1:])
	}
	return argv[1:]
}

// sameProgramFile reports whether two program paths run the same file,
// or name versions of the same program in one directory.
func sameProgramFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 == nil && err2 == nil && ra == rb {
		return true
	}
	return filepath.Dir(a) == filepath.Dir(b) && canonicalProgram(filepath.Base(a)) == canonicalProgram(filepath.Base(b))
}

func equalWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// PolicyRoot is a [[root]]: an extra directory commands may use.
type PolicyRoot struct {
	Path   string `toml:"path"`
	Access string `toml:"access"` // "read-only" or "read-write"
	File   string `toml:"-"`
	Line   int    `toml:"-"`
}

type policyLimits struct {
	Timeout   string `toml:"timeout"`
	MaxOutput string `toml:"max_output"`
	FileSize  string `toml:"file_size"`
	OpenFiles uint64 `toml:"open_files"`
	Processes uint64 `toml:"processes"`
	CPUTime   string `toml:"cpu_time"`
	Memory    string `toml:"memory"`
}

type policyFile struct {
	// Confinement is "required", "best-effort" or "off".
	Confinement string `toml:"confinement"`
	// Protect adds names, relative to the workspace root, that commands
	// may not change (a trailing "/" marks a directory).
	Protect []string `toml:"protect"`
	// PlaceholderFiles: missing protected file names get empty
	// placeholder files, so the kernel keeps them too.
	PlaceholderFiles *bool `toml:"placeholder_files"`
	// Placeholders: the same for missing protected directory names.
	Placeholders *bool `toml:"placeholders"`
	// Seatbelt: on macOS, apply the box's Seatbelt profile (opt-in:
	// untested).
	Seatbelt *bool        `toml:"seatbelt"`
	Rule     []PolicyRule `toml:"rule"`
	Root     []PolicyRoot `toml:"root"`
	Limits   policyLimits `toml:"limits"`
	// EscalateAfter is how many refusals that signal probing a session
	// may have before every command in it needs a person; 0: never.
	EscalateAfter *int `toml:"escalate_after"`
	Paths         struct {
		// Extra are directories of the user's toolchains (pyenv, nvm,
		// ~/.cargo/bin, ~/.local/bin) added to the trusted PATH.
		Extra []string `toml:"extra"`
	} `toml:"paths"`
}

// ProcessLimits bound every process a command starts. The zero value
// of a field means the default in DefaultProcessLimits.
type ProcessLimits struct {
	FileSize  uint64 // bytes
	OpenFiles uint64
	Processes uint64
	CPUTime   uint64 // seconds
	Memory    uint64 // bytes, for a workspace's commands together; 0: the box's default
}

// DefaultProcessLimits apply where no policy sets a limit: generous for
// builds and tests, finite against a runaway.
var DefaultProcessLimits = ProcessLimits{FileSize: 8 << 30, OpenFiles: 4096, Processes: 2048, CPUTime: 3600}

// confinementStrength orders confinement modes, strictest last.
var confinementStrength = map[string]int{"off": 0, "best-effort": 1, "required": 2}

// Policy is every layer loaded, in order.
type Policy struct {
	Rules     []PolicyRule
	Roots     []PolicyRoot
	Timeout   time.Duration // 0: not set
	MaxOutput int           // 0: not set
	// Confinement is the mode the policy asks for; "" means the default.
	Confinement string
	// Protect are the names every layer added to the protected ones.
	Protect []string
	// PlaceholderFiles is placeholder_files from a trusted layer (it makes
	// files in the workspace, which a project's own file may not ask for).
	PlaceholderFiles bool
	// Placeholders is placeholders from a trusted layer (directories).
	Placeholders bool
	// Seatbelt is seatbelt from a trusted layer: on macOS the box's
	// Seatbelt profile is applied, which no test of vtexec has run.
	Seatbelt bool
	// Limits are the process limits, defaults filled in.
	Limits ProcessLimits
	// EscalateAfter is how many refusals that signal probing a session
	// may have before every command in it needs a person; 0: never. An
	// untrusted file may only lower it.
	EscalateAfter int
	// ExtraPaths are directories a trusted layer adds to the trusted
	// PATH, after the system's: programs there are found, checked and
	// run (read-only in the box) as the system's are.
	ExtraPaths []string
	Files      []string // the files that existed and were loaded
	// Broken are rules that name a program but do not load: the
	// commands of that program are refused (bad_policy), every other
	// command is decided as if they were not there.
	Broken []BrokenRule
	// Ignored are allow rules and roots from untrusted files, kept so
	// that policy list can show them.
	Ignored []PolicyRule
}

// PolicyError is a policy file vtexec refuses to use.
type PolicyError struct {
	File    string
	Line    int
	Problem string
}

// BrokenRule is a rule that does not load, and why.
type BrokenRule struct {
	Rule PolicyRule
	Err  *PolicyError
}

func (e *PolicyError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Problem)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Problem)
}

// Layer is one policy file and how far it is trusted. An untrusted file
// (a project file nobody has vouched for) may only make things stricter:
// its allow rules, extra roots and limits are ignored.
type Layer struct {
	Path    string
	Trusted bool
	// FollowLink: a symbolic link at Path is followed (the user's own
	// file); otherwise a link is refused (a project's files).
	FollowLink bool
	// Loaded: Data is the file's content, already read by the caller
	// (with ReadLayer); nil Data is a missing file.
	Loaded bool
	Data   []byte
}

// MaxPolicyBytes is the most a policy file or the trust store may hold.
const MaxPolicyBytes = 1 << 20

// ReadLayer reads a policy file the way LoadPolicy does: a regular file
// of at most MaxPolicyBytes, opened without blocking, a final symbolic
// link followed only if follow is set. A missing file is nil data and the
// zero identity. Other problems are a *PolicyError.
func ReadLayer(path string, follow bool) ([]byte, fsutil.Identity, error) {
	data, id, err := fsutil.ReadRegular(path, MaxPolicyBytes, follow)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fsutil.Identity{}, nil
	}
	if err != nil {
		var fe *fsutil.FileError
		if errors.As(err, &fe) {
			return nil, fsutil.Identity{}, &PolicyError{File: path, Problem: fe.Reason}
		}
		return nil, fsutil.Identity{}, &PolicyError{File: path, Problem: err.Error()}
	}
	return data, id, nil
}

// LoadPolicy reads the layers in order; a missing file is skipped. Any
// problem in a file that exists fails the whole load, naming file and
// line: vtexec never runs on a policy it could not read.
func LoadPolicy(layers ...Layer) (*Policy, error) {
	pol := &Policy{Limits: DefaultProcessLimits, EscalateAfter: DefaultEscalateAfter}
	for _, l := range layers {
		data := l.Data
		if !l.Loaded {
			var err error
			if data, _, err = ReadLayer(l.Path, l.FollowLink); err != nil {
				return nil, err
			}
		}
		if data == nil {
			continue
		}
		if err := pol.add(l, data); err != nil {
			return nil, err
		}
		pol.Files = append(pol.Files, l.Path)
	}
	return pol, nil
}

// TOML a policy file may hold: nesting of arrays and inline tables, and
// values (keys, elements) in all.
const (
	maxTOMLDepth  = 16
	maxTOMLValues = 20000
)

// tomlBounds refuses, before the decoder builds anything, a file that
// nests arrays or inline tables more than maxTOMLDepth deep or holds more
// than maxTOMLValues values: a repository's file, under the size cap,
// could otherwise cost hundreds of megabytes and seconds on every call.
// It reads the text as TOML's lexer would for this purpose: strings
// (basic, literal, multi-line) and comments are skipped.
func tomlBounds(path string, data []byte) error {
	depth, values, line := 0, 0, 1
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '\n':
			line++
		case c == '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i--
		case c == '"' || c == '\'':
			quote := string(data[i : i+1])
			if i+2 < len(data) && data[i+1] == c && data[i+2] == c {
				quote = strings.Repeat(quote, 3)
			}
			end := len(data)
			for j := i + len(quote); j < len(data); j++ {
				if data[j] == '\\' && c == '"' {
					j++
					continue
				}
				if data[j] == '\n' {
					line++
					if len(quote) == 1 {
						end = j
						break
					}
				}
				if strings.HasPrefix(string(data[j:min(j+len(quote), len(data))]), quote) {
					end = j + len(quote) - 1
					break
				}
			}
			i = end
		case c == '[' || c == '{':
			if depth++; depth > maxTOMLDepth {
				return &PolicyError{File: path, Line: line, Problem: fmt.Sprintf("arrays and tables nest more than %d deep", maxTOMLDepth)}
			}
		case c == ']' || c == '}':
			depth--
		case c == ',' || c == '=':
			if values++; values > maxTOMLValues {
				return &PolicyError{File: path, Line: line, Problem: fmt.Sprintf("the file holds more than %d values", maxTOMLValues)}
			}
		}
	}
	return nil
}

func (pol *Policy) add(l Layer, data []byte) error {
	if err := tomlBounds(l.Path, data); err != nil {
		return err
	}
	var pf policyFile
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pf); err != nil {
		return tomlError(l.Path, err)
	}
	ruleLines := headerLines(data, "rule")
	rootLines := headerLines(data, "root")
	for i := range pf.Rule {
		r := &pf.Rule[i]
		r.File, r.Line = l.Path, lineAt(ruleLines, i)
		if err := r.validate(); err != nil {
			pe := &PolicyError{File: l.Path, Line: r.Line, Problem: err.Error()}
			if r.Program == "" || strings.Contains(r.Program, "/") && !filepath.IsAbs(r.Program) {
				return pe // no program it could be held to: nothing runs
			}
			// Fail closed for what the rule is about, not for everything.
			pol.Broken = append(pol.Broken, BrokenRule{Rule: *r, Err: pe})
			continue
		}
		if r.Decision == RuleAllow && !l.Trusted {
			pol.Ignored = append(pol.Ignored, *r)
			continue
		}
		pol.Rules = append(pol.Rules, *r)
	}
	for i := range pf.Root {
		root := pf.Root[i]
		root.File, root.Line = l.Path, lineAt(rootLines, i)
		if !filepath.IsAbs(root.Path) || (root.Access != "read-only" && root.Access != "read-write") {
			return &PolicyError{File: l.Path, Line: root.Line, Problem: `a root needs an absolute path and access = "read-only" or "read-write"`}
		}
		if l.Trusted {
			pol.Roots = append(pol.Roots, root)
		}
	}
	for _, n := range pf.Protect {
		// Protecting more only makes things stricter: any layer may.
		clean := strings.TrimSuffix(n, "/")
		if clean == "" || filepath.IsAbs(n) || filepath.Clean(clean) != clean || clean == ".." || strings.HasPrefix(clean, "../") {
			return &PolicyError{File: l.Path, Problem: fmt.Sprintf("protect %q: name a path relative to the workspace root, without .. (a trailing / for a directory)", n)}
		}
		pol.Protect = append(pol.Protect, n)
	}
	if pf.PlaceholderFiles != nil && l.Trusted {
		pol.PlaceholderFiles = *pf.PlaceholderFiles
	}
	if pf.Placeholders != nil && l.Trusted {
		pol.Placeholders = *pf.Placeholders
	}
	if pf.Seatbelt != nil && l.Trusted {
		pol.Seatbelt = *pf.Seatbelt
	}
	if c := pf.Confinement; c != "" {
		if _, ok := confinementStrength[c]; !ok {
			return &PolicyError{File: l.Path, Problem: fmt.Sprintf("confinement %q: use required, best-effort or off", c)}
		}
		// An untrusted file may only ask for more.
		if l.Trusted || confinementStrength[c] > confinementStrength[orDefault(pol.Confinement, "best-effort")] {
			pol.Confinement = c
		}
	}
	for _, d := range pf.Paths.Extra {
		if !filepath.IsAbs(d) || filepath.Clean(d) != d || strings.ContainsAny(d, ":\n") || d == "/" {
			return &PolicyError{File: l.Path, Problem: fmt.Sprintf("paths.extra %q: name an absolute, clean directory without a colon", d)}
		}
		if l.Trusted {
			pol.ExtraPaths = append(pol.ExtraPaths, d)
		}
	}
	if n := pf.EscalateAfter; n != nil {
		if *n < 0 {
			return &PolicyError{File: l.Path, Problem: fmt.Sprintf("escalate_after %d: use a count of refusals, or 0 for never", *n)}
		}
		// An untrusted file may only make it sooner.
		if l.Trusted || (*n > 0 && (pol.EscalateAfter == 0 || *n < pol.EscalateAfter)) {
			pol.EscalateAfter = *n
		}
	}
	return pol.addLimits(l, pf.Limits, data)
}

func (pol *Policy) addLimits(l Layer, lim policyLimits, data []byte) error {
	line := lineAt(headerLines(data, "limits"), 0)
	if lim.Timeout != "" {
		d, err := time.ParseDuration(lim.Timeout)
		if err != nil || d <= 0 {
			return &PolicyError{File: l.Path, Line: line, Problem: fmt.Sprintf("limits.timeout %q is not a duration like 30s", lim.Timeout)}
		}
		if l.Trusted || d < orDefault(pol.Timeout, DefaultTimeout) {
			pol.Timeout = d
		}
	}
	if lim.MaxOutput != "" {
		n, err := ParseSize(lim.MaxOutput)
		if err != nil {
			return &PolicyError{File: l.Path, Line: line, Problem: "limits.max_output: " + err.Error()}
		}
		if l.Trusted || n < orDefault(pol.MaxOutput, DefaultMaxOutput) {
			pol.MaxOutput = n
		}
	}
	return pol.addProcessLimits(l, lim, line)
}

// addProcessLimits reads the process limits of [limits]; an untrusted
// file may only lower them.
func (pol *Policy) addProcessLimits(l Layer, lim policyLimits, line int) error {
	set := func(cur *uint64, v uint64) {
		if v > 0 && (l.Trusted || v < *cur) {
			*cur = v
		}
	}
	if lim.FileSize != "" {
		n, err := ParseSize(lim.FileSize)
		if err != nil {
			return &PolicyError{File: l.Path, Line: line, Problem: "limits.file_size: " + err.Error()}
		}
		set(&pol.Limits.FileSize, uint64(n))
	}
	if lim.CPUTime != "" {
		d, err := time.ParseDuration(lim.CPUTime)
		if err != nil || d < time.Second {
			return &PolicyError{File: l.Path, Line: line, Problem: fmt.Sprintf("limits.cpu_time %q is not a duration of a second or more, like 10m", lim.CPUTime)}
		}
		set(&pol.Limits.CPUTime, uint64(d/time.Second))
	}
	if lim.Memory != "" {
		n, err := ParseSize(lim.Memory)
		if err != nil || n < 16<<20 {
			return &PolicyError{File: l.Path, Line: line, Problem: fmt.Sprintf("limits.memory %q is not a size of 16MiB or more, like 4GiB", lim.Memory)}
		}
		if l.Trusted || pol.Limits.Memory == 0 || uint64(n) < pol.Limits.Memory {
			pol.Limits.Memory = uint64(n)
		}
	}
	set(&pol.Limits.OpenFiles, lim.OpenFiles)
	set(&pol.Limits.Processes, lim.Processes)
	return nil
}

var subcommandWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:+-]*$`) })

func (r *PolicyRule) validate() error {
	switch {
	case r.Program == "":
		return errors.New("a rule needs a program")
	case r.Decision != RuleAllow && r.Decision != RuleAsk && r.Decision != RuleDeny:
		return fmt.Errorf("decision %q must be allow, ask or deny", r.Decision)
	case len(r.Subcommand) > 0 && r.Argv != nil:
		return errors.New("a rule has subcommand or argv, not both")
	case r.Network && r.Decision != RuleAllow:
		return errors.New("network = true belongs on an allow rule")
	case strings.Contains(r.Program, "/") && !filepath.IsAbs(r.Program):
		return fmt.Errorf("program %q must be a name or an absolute path", r.Program)
	case r.Shaped && r.Argv != nil:
		return errors.New("a shaped rule has subcommand, flags and operands, not argv")
	case !r.Shaped && (r.Flags != nil || r.Operands != nil || r.AnyOperands || r.Bound != ""):
		return errors.New("flags, operands, any_operands and bound belong to a shaped rule (shaped = true)")
	}
	if r.Shaped {
		if _, ok := validators.ShapeOf(canonicalProgram(filepath.Base(r.Program))); !ok {
			return fmt.Errorf("program %q has no approval shape: write subcommand or argv instead of shaped", r.Program)
		}
	}
	for _, ex := range r.Match {
		p, err := examplePart(ex)
		if err != nil {
			return fmt.Errorf("match example %q: %v", ex, err)
		}
		if !r.Matches(p) {
			return fmt.Errorf("match example %q does not match the rule %s", ex, r)
		}
	}
	for _, ex := range r.NotMatch {
		p, err := examplePart(ex)
		if err != nil {
			return fmt.Errorf("not_match example %q: %v", ex, err)
		}
		if r.Matches(p) {
			return fmt.Errorf("not_match example %q matches the rule %s", ex, r)
		}
	}
	return nil
}

// examplePart turns an example command into a Part: one simple command,
// words expanded without any environment or globbing.
func examplePart(src string) (Part, error) {
	f, err := ParseBash(src)
	if err != nil {
		return Part{}, err
	}
	if len(f.Stmts) != 1 {
		return Part{}, errors.New("an example is one simple command")
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return Part{}, errors.New("an example is one simple command")
	}
	argv := make([]string, len(call.Args))
	for i, w := range call.Args {
		if argv[i], err = expand.Literal(&expand.Config{ProcSubst: noProcSubst}, w); err != nil {
			return Part{}, err
		}
	}
	prog, _ := plan.LookPath(filepath.Base(argv[0]), TrustedPath())
	return Part{Argv: argv, Program: prog}, nil
}

// TrustedPath is the default trusted PATH, for callers outside a Checker.
func TrustedPath() string { var c Checker; return c.trustedPath() }

// LookPath finds a program on the default trusted PATH.
func LookPath(name string) (string, bool) { return plan.LookPath(name, TrustedPath()) }

// tomlError turns a decoding error into a PolicyError with a line.
func tomlError(file string, err error) error {
	var derr *toml.DecodeError
	if errors.As(err, &derr) {
		row, _ := derr.Position()
		return &PolicyError{File: file, Line: row, Problem: derr.Error()}
	}
	var serr *toml.StrictMissingError
	if errors.As(err, &serr) && len(serr.Errors) > 0 {
		first := serr.Errors[0]
		row, _ := first.Position()
		return &PolicyError{File: file, Line: row, Problem: "unknown key " + strings.Join(first.Key(), ".")}
	}
	return &PolicyError{File: file, Problem: err.Error()}
}

// headerLines returns the line numbers of the table headers [[name]] (or
// [name]), in order. TOML puts every header on its own line.
func headerLines(data []byte, name string) []int {
	re := regexp.MustCompile(`^\s*\[\[?\s*` + regexp.QuoteMeta(name) + `\s*\]\]?\s*(#.*)?$`)
	var lines []int
	for i, line := range strings.Split(string(data), "\n") {
		if re.MatchString(line) {
			lines = append(lines, i+1)
		}
	}
	return lines
}

func lineAt(lines []int, i int) int {
	if i < len(lines) {
		return lines[i]
	}
	return 0
}

// ParseSize reads a byte count: 65536, 64K, 64KiB, 1M, 1MiB.
func ParseSize(s string) (int, error) {
	units := []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	mult := 1
	num := s
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 || n > (1<<31)/mult {
		return 0, fmt.Errorf("%q is not a size like 65536, 64KiB or 1MiB", s)
	}
	return n * mult, nil
}
