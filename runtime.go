package vtexec

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/execpolicy"
	"github.com/vtexec/vtexec/interpreter"
	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/validators"
)

// CodeRunTimeCheck is the code of check's ask for a request whose words
// are known only when it runs: run, it is checked command by command.
const CodeRunTimeCheck = codes.RunTimeCheck

// runTime is a request that runs in vtexec's interpreter: the static
// check refused it only for words known at run time.
type runTime struct {
	file   *syntax.File
	shapes []interpreter.Shape
	// words are the run-time words, as written.
	words []string
	// staticAsks: a command known before the run needs a person.
	staticAsks bool
	// mayAsk are the commands whose program needs a person whatever its
	// words: each is asked about when it is reached, with its words.
	mayAsk []execpolicy.Part
	// approved are the commands known before the run that a person
	// approved for this run: reached with the same words in the same
	// directory, they are not asked about again.
	approved []execpolicy.Part
}

// preApproved reports whether every asking part of a command reached at
// run time was approved before the run, with the same words, in the same
// directory.
func (rt *runTime) preApproved(parts []execpolicy.Part) bool {
	asked := false
	for _, p := range parts {
		if p.Decision == execpolicy.Deny {
			return false
		}
		if p.Decision != execpolicy.Ask {
			continue
		}
		asked = true
		if !slices.ContainsFunc(rt.approved, func(a execpolicy.Part) bool {
			return a.Dir == p.Dir && slices.Equal(a.Argv, p.Argv)
		}) {
			return false
		}
	}
	return asked
}

// runTimeCode reports whether a static refusal's code is one of a form
// the interpreter runs.
func runTimeCode(code string) bool {
	switch code {
	case codes.Substitution, codes.Expansion, codes.ControlFlow, codes.Assignment, codes.Subshell, codes.ShellBuiltin:
		return true
	}
	return false
}

// inertBuiltin reports whether the interpreter runs argv as a builtin
// whatever its words: it prints, tests, looks a name up, or changes only
// the interpreter's own state.
func inertBuiltin(argv []string) bool {
	p := validators.ProfileOf(argv[0])
	return p.Inert || interpreter.ShellState(argv[0]) || (p.ProgramLookup != nil && p.ProgramLookup(argv) != "")
}

// decideRunTime takes over a static refusal of a form the interpreter
// runs: it decides the request by its shapes and marks it to run in the
// interpreter. It leaves other refusals as they are.
func (st *state) decideRunTime(v *execpolicy.Verdict) {
	if v.Decision != execpolicy.Deny || !runTimeCode(v.Code) {
		return
	}
	f, err := execpolicy.ParseBash(st.src)
	if err != nil {
		return
	}
	if r := interpreter.Unsupported(f); r != nil {
		// Refused: what keeps the interpreter from running it.
		st.decided.Code, st.decided.Reason, st.decided.Hint = r.Code, r.Reason, r.Hint
		return
	}
	rt := &runTime{file: f, shapes: interpreter.Shapes(f, st.src)}
	// A loop on a condition may not end: only the run can tell.
	proven := !interpreter.Loops(f)
	var parts []execpolicy.Part
	var rules []*execpolicy.PolicyRule
	var refused *execpolicy.Part
	cdSeen := false
	refuse := func(p execpolicy.Part) {
		if refused == nil {
			refused = &p
		}
	}
	for _, sh := range rt.shapes {
		rt.words = append(rt.words, sh.RunTimeWords()...)
		prog, known := sh.Program()
		if !known {
			refuse(execpolicy.Part{Argv: []string{prog}, Decision: execpolicy.Deny, Code: codes.Substitution,
				Reason: "the program " + prog + " is known only when it runs: vtexec runs a program only when its name is written out",
				Hint:   "write the program's name, and pass the computed words as its arguments"})
			continue
		}
		switch {
		case prog == "":
			// Assignments or a compound statement's redirects.
		case prog == "cd":
			cdSeen, proven = true, false
			if sh.Static() {
				st.checkShape(sh.Source, &parts, &rules, refuse)
			}
			continue
		case prog == "set":
			if !sh.Static() {
				proven = false
			}
			continue // the interpreter takes only -e, -u, -x and -o pipefail
		case interp.IsBuiltin(prog) && !inertBuiltin(unquoted(sh)):
			refuse(execpolicy.Part{Argv: []string{prog}, Decision: execpolicy.Deny, Code: codes.ShellBuiltin,
				Reason: prog + " is a shell builtin vtexec's interpreter does not run: it would change what runs in ways vtexec cannot check",
				Hint:   "run programs directly"})
			continue
		case interp.IsBuiltin(prog):
			// An inert builtin: only its redirects reach anything, but
			// its static words must expand within the limits.
			if sh.Static() && !cdSeen && !interpreter.ShellState(prog) {
				st.checkShape(sh.Source, &parts, &rules, refuse)
				continue
			}
		default:
			if cdSeen {
				proven = false
				continue // its directory is known only at run time
			}
			if sh.Static() {
				st.checkShape(sh.Source, &parts, &rules, refuse)
				continue
			}
			proven = false
			// The program alone: one that needs a person or is refused
			// whatever its words is decided now.
			var alone []execpolicy.Part
			var none []*execpolicy.PolicyRule
			st.checkShape(prog, &alone, &none, func(execpolicy.Part) {})
			for _, p := range alone {
				if p.Code == codes.NotAllowed || p.Code == codes.ForbiddenProgram || p.Code == codes.WorkspaceProgram {
					if p.Decision == execpolicy.Deny {
						refuse(p)
					}
					// Asked about when reached, with its words.
					p.Argv = shapeWords(sh)
					rt.mayAsk = append(rt.mayAsk, p)
				}
			}
			continue
		}
		// Redirects of a builtin or a compound statement.
		for _, r := range sh.Redirects {
			if r.RunTime {
				proven = false
			} else if !cdSeen {
				st.checkShape(": "+r.Text, &parts, &rules, refuse)
			}
		}
		for _, a := range sh.Assigns {
			if prog != "" && a.RunTime {
				proven = false
			}
		}
	}
	for _, p := range parts {
		if p.Decision == execpolicy.Ask {
			rt.staticAsks = true
		}
	}
	if refused == nil {
		// After the commands: a refused program says more.
		if r := interpreter.RunTimePatterns(f); r != nil {
			refuse(execpolicy.Part{Decision: execpolicy.Deny, Code: r.Code, Reason: r.Reason, Hint: r.Hint})
		}
	}
	d := &execpolicy.Decided{Verdict: &execpolicy.Verdict{Decision: execpolicy.Allow, Parts: parts}, Rules: rules}
	switch {
	case refused != nil:
		d.Decision, d.Code, d.Reason, d.Hint = execpolicy.Deny, refused.Code, refused.Reason, refused.Hint
	case rt.staticAsks:
		strict := execpolicy.Strictest(parts)
		d.Decision, d.Code, d.Reason, d.Hint, d.NeverAlways = strict.Decision, strict.Code, strict.Reason, strict.Hint, strict.NeverAlways
	case len(rt.mayAsk) > 0:
		p := rt.mayAsk[0]
		d.Decision, d.Code, d.NeverAlways = execpolicy.Ask, p.Code, p.NeverAlways
		d.Reason = DisplayArgv(p.Argv) + ": " + p.Reason + "; it is asked about when it is reached, with its final words"
		d.Hint = "run it where a person can be asked (a terminal, an MCP client that can be asked), or approve its uses ahead (vtexec policy allow -- " + DisplayArgv(p.Argv[:1]) + " ARGS)"
	case !proven:
		d.Decision, d.Code = execpolicy.Ask, CodeRunTimeCheck
		d.Reason = "words of this command are known only when it runs (" + strings.Join(rt.words, " ") + "): vtexec runs it in its interpreter and checks each command with its final words as it is reached; a refused command stops the run there, after what ran before it"
		d.Hint = "run it (vtexec run, or the shell tool): each command is checked as it runs; or write the words out to have it decided now"
	}
	st.decided, st.rt = d, rt
}

// checkShape checks a statement known before the run, as the static
// check would, under the policy and the session's approvals.
func (st *state) checkShape(src string, parts *[]execpolicy.Part, rules *[]*execpolicy.PolicyRule, refuse func(execpolicy.Part)) {
	decided := st.applied(src, st.ws)
	for i, p := range decided.Parts {
		if p.Decision == execpolicy.Deny {
			refuse(p)
		}
		*parts = append(*parts, p)
		*rules = append(*rules, decided.Rules[i])
	}
	if len(decided.Parts) == 0 && decided.Decision == execpolicy.Deny {
		refuse(execpolicy.Part{Argv: []string{src}, Decision: execpolicy.Deny, Code: decided.Code, Reason: decided.Reason, Hint: decided.Hint})
	}
}

// unquoted is a shape's words without their quotes, enough to tell
// command -v from command.
func unquoted(sh interpreter.Shape) []string {
	out := shapeWords(sh)
	for i, w := range out {
		out[i] = strings.Trim(w, `'"`)
	}
	return out
}

// boxPlan is the plan a run-time request's box is made for: one command
// per program named in it, with what its profile needs of the box.
func (rt *runTime) boxPlan() *plan.Plan {
	p := &plan.Plan{}
	seen := map[string]bool{}
	var cmds []plan.Cmd
	for _, sh := range rt.shapes {
		prog, known := sh.Program()
		if !known || prog == "" || interp.IsBuiltin(prog) || seen[prog] {
			continue
		}
		seen[prog] = true
		prof := validators.ProfileOf(filepath.Base(strings.Trim(prog, `'"`)))
		cmds = append(cmds, plan.Cmd{Argv: []string{prog}, Git: prof.WritesGitDir, GoToolchain: prof.GoToolchain})
	}
	if len(cmds) > 0 {
		p.Steps = []plan.Step{{Pipeline: plan.Pipeline{Cmds: cmds}}}
	}
	return p
}

// quoteArgv is argv as a command line that parses back to argv, with
// the settings before it.
func quoteArgv(settings, argv []string) (string, error) {
	var words []string
	for _, kv := range settings {
		k, v, _ := strings.Cut(kv, "=")
		q, err := syntax.Quote(v, syntax.LangBash)
		if err != nil {
			return "", err
		}
		words = append(words, k+"="+q)
	}
	for _, a := range argv {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			return "", err
		}
		words = append(words, q)
	}
	return strings.Join(words, " "), nil
}

// ranList names the commands that ran, for a stop's reason.
func ranList(ran [][]string) string {
	if len(ran) == 0 {
		return "nothing ran before it"
	}
	const most = 5
	shown := make([]string, 0, most)
	for _, argv := range ran[max(0, len(ran)-most):] {
		shown = append(shown, DisplayArgv(argv))
	}
	more := ""
	if len(ran) > most {
		more = fmt.Sprintf("%d commands, the last: ", len(ran))
	}
	return "ran before it: " + more + strings.Join(shown, "; ")
}

// shapeWords are a shape's words as written, for the commands of an
// answer.
func shapeWords(sh interpreter.Shape) []string {
	out := make([]string, len(sh.Words))
	for i, w := range sh.Words {
		out[i] = w.Text
	}
	return out
}
