// Package plan holds the contract between checking and running: a command
// string, once parsed and checked, becomes a Plan of literal argv lists, and
// the runner executes exactly that Plan and nothing else.
package plan

import "slices"

// Op joins a pipeline to the one before it in a list.
type Op int

const (
	// Seq is ";" or a newline: run regardless of the previous status.
	Seq Op = iota
	// And is "&&": run only if the previous pipeline succeeded.
	And
	// Or is "||": run only if the previous pipeline failed.
	Or
)

func (o Op) String() string {
	switch o {
	case And:
		return "&&"
	case Or:
		return "||"
	default:
		return ";"
	}
}

// Plan is a list of pipelines joined by operators, in source order, and
// the compound commands they belong to.
type Plan struct {
	Steps []Step
	// Groups holds group id at Groups[id-1].
	Groups []Group
}

// Step is one pipeline of a list and the operator that joins it to the
// previous step. The first step's Op is Seq.
type Step struct {
	Op       Op
	Pipeline Pipeline
	// Group is the innermost compound command the step belongs to (see
	// Group), or 0.
	Group int
	// Negate: the pipeline was typed with ! before it, which turns its
	// status to 1 when it is 0 and to 0 otherwise.
	Negate bool
}

// Group is one compound command of the list: an unrolled for loop, a
// ( ) or { } group, an if statement or one of its branches. Its steps
// are contiguous, and so are those of the groups inside it. As bash
// does, a group is entered when the operator of its first step lets that
// step run (an else branch: and its then branch was not entered); a
// group not entered runs none of its steps.
type Group struct {
	// Parent is the group this one is inside, or 0.
	Parent int
	// Subshell marks a ( ) group: a cd inside it holds until it ends.
	Subshell bool
	// ElseOf, for an if's else branch, is its then branch's group.
	ElseOf int
	// Redirects are the group's own ({ …; } > out.txt), output only:
	// opened once as the group is entered, they stand for its standard
	// output and error (each pipeline's last command's output, every
	// command's errors) until it ends.
	Redirects []Redirect
}

// GroupOf returns group id (the zero Group for an id the plan does not
// list).
func (p *Plan) GroupOf(id int) Group {
	if id < 1 || id > len(p.Groups) {
		return Group{}
	}
	return p.Groups[id-1]
}

// Chain returns the groups a step of group id is inside, outermost
// first: empty for 0.
func (p *Plan) Chain(id int) []int {
	var chain []int
	for seen := 0; id != 0 && seen <= len(p.Groups); seen++ {
		chain = append(chain, id)
		id = p.GroupOf(id).Parent
	}
	slices.Reverse(chain)
	return chain
}

// Pipeline is one or more commands joined by "|".
type Pipeline struct {
	Cmds []Cmd
}

// Cmd is one simple command, fully expanded.
type Cmd struct {
	// Argv is the argument vector the validators approved. Argv[0] is the
	// program name as typed; the runner executes Program with exactly Argv.
	Argv []string
	// Program is the absolute path of the program found on the trusted PATH.
	// It is empty for a builtin.
	Program string
	// Builtin names a command vtexec carries out itself ("cd"), or is empty.
	Builtin string
	// Dir is the absolute working directory the command was checked against.
	Dir string
	// Env holds KEY=VALUE settings of the command's output (LC_ALL=C …),
	// from a prefix; they replace what the runner would set.
	Env []string
	// Redirects apply in order, as in the shell.
	Redirects []Redirect
	// Asks holds the codes of what the check found needed a person's
	// approval in this command (and in what its wrappers run). A check
	// just before the command runs may find these again, nothing new.
	Asks []string
	// Network: a person's rule lets this command use the network.
	Network bool
	// Git: the command runs git, itself or under a wrapper, which may
	// write the git directory (but its hooks and config).
	Git bool
	// GoToolchain: the command runs Go's toolchain, itself or under a
	// wrapper, which gets its preset.
	GoToolchain bool
}

// Any reports whether some command of the plan (nil: none) is one f
// accepts.
func (p *Plan) Any(f func(Cmd) bool) bool {
	if p == nil {
		return false
	}
	for _, s := range p.Steps {
		for _, c := range s.Pipeline.Cmds {
			if f(c) {
				return true
			}
		}
	}
	return false
}

// Commands returns every command of the plan in source order.
func (p *Plan) Commands() []Cmd {
	var out []Cmd
	for _, s := range p.Steps {
		out = append(out, s.Pipeline.Cmds...)
	}
	return out
}

// RedirectKind says what a redirect does to its file descriptor.
type RedirectKind int

const (
	// Write truncates or creates Path and opens it for writing (">").
	Write RedirectKind = iota
	// Append opens Path for appending, creating it if needed (">>").
	Append
	// Read opens Path for reading ("<").
	Read
	// Dup makes Fd a copy of DupFd ("2>&1", ">&2").
	Dup
	// Input feeds Data to Fd: a here-document or here-string.
	Input
)

// Redirect is one redirection of a command's file descriptor.
type Redirect struct {
	Fd    int
	Kind  RedirectKind
	Path  string // absolute; for Write, Append and Read
	DupFd int    // for Dup
	Data  string // for Input
}

// TrustedPath is the only PATH programs are looked up on and the PATH the
// commands run with. The caller's PATH is never consulted. Every entry is a
// root-owned system location (/usr/local/go/bin is where Go's own
// installer puts the go command).
const TrustedPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/go/bin"
