package execpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/validators"
)

// Code for decisions made by a policy rule.
const (
	CodePolicyDeny = codes.PolicyDeny
	CodePolicyAsk  = codes.PolicyAsk
)

// Decided is a verdict after policy rules and approvals, with the rule
// that decided each part (nil where no rule did).
type Decided struct {
	*Verdict
	Rules []*PolicyRule // parallel to Verdict.Parts
	// Network holds the indexes of the plan's commands that a person's
	// allow rule with network = true approved: only those may use the
	// network. An auto-allowed command never gets it.
	Network map[int]bool
}

// DecidingRule returns the rule behind the overall decision, if any.
func (d *Decided) DecidingRule() *PolicyRule {
	for i, p := range d.Parts {
		if p.Decision == d.Decision && d.Rules[i] != nil {
			return d.Rules[i]
		}
	}
	for _, r := range d.Rules {
		if r != nil {
			return r
		}
	}
	return nil
}

// Apply decides v under the policy and the session's approvals (rules
// with decision allow). Per part: a deny rule denies; a validator's deny
// stays; an ask rule asks, whatever allow rule matches too, unless a
// session approval answers it; an allow rule lifts a validator's ask,
// except for parts that may never be approved always, which only a
// session approval lifts. The result is the strictest part.
func (pol *Policy) Apply(v *Verdict, session []PolicyRule) *Decided {
	out := &Decided{Verdict: &Verdict{Plan: v.Plan}, Rules: make([]*PolicyRule, len(v.Parts))}
	if len(v.Parts) == 0 {
		*out.Verdict = *v
		return out
	}
	var rules []PolicyRule
	if pol != nil {
		rules = pol.Rules
	}
	for i, p := range v.Parts {
		var deny, ask, allow, sess *PolicyRule
		for j := range rules {
			r := &rules[j]
			if !r.Matches(p) {
				continue
			}
			switch r.Decision {
			case RuleDeny:
				deny = first(deny, r)
			case RuleAsk:
				ask = first(ask, r)
			case RuleAllow:
				allow = first(allow, r)
			}
		}
		for j := range session {
			if session[j].Matches(p) {
				sess = first(sess, &session[j])
			}
		}
		broken := pol.brokenFor(p)
		switch {
		case broken != nil:
			p = Part{Argv: p.Argv, Program: p.Program, Decision: Deny, Code: codes.BadPolicy, Dir: p.Dir, Cmd: p.Cmd,
				Reason: "a rule about " + filepath.Base(broken.Rule.Program) + " does not load: " + broken.Err.Error(),
				Hint:   "fix or remove that rule (vtexec policy check shows it); commands of other programs are not held up"}
		case deny != nil:
			p = ruledPart(p, Deny, CodePolicyDeny, deny, "this command is denied by policy; use another command or change the rule")
			out.Rules[i] = deny
		case p.Decision == Deny:
		case ask != nil && sess == nil:
			// An ask rule holds whatever allow rule matches too; only a
			// person's answer for this session lifts it, so "always"
			// is not offered.
			p = ruledPart(p, Ask, CodePolicyAsk, ask, "a person must approve it, as the policy asks")
			p.NeverAlways = true
			out.Rules[i] = ask
		case p.Decision == Ask && sess != nil, ask != nil:
			p = Part{Argv: p.Argv, Program: p.Program, Decision: Allow}
			out.Rules[i] = sess
		case p.Decision == Ask && allow != nil && !p.NeverAlways:
			if allow.Network {
				if out.Network == nil {
					out.Network = map[int]bool{}
				}
				out.Network[p.Cmd] = true
			}
			p = Part{Argv: p.Argv, Program: p.Program, Decision: Allow, Cmd: p.Cmd}
			out.Rules[i] = allow
		}
		out.Parts = append(out.Parts, p)
	}
	strict := Strictest(out.Parts)
	out.Decision, out.Code, out.Reason, out.Hint, out.NeverAlways = strict.Decision, strict.Code, strict.Reason, strict.Hint, strict.NeverAlways
	return out
}

// brokenFor returns the broken rule about p's program, if any.
func (pol *Policy) brokenFor(p Part) *BrokenRule {
	if pol == nil || len(p.Argv) == 0 {
		return nil
	}
	for i := range pol.Broken {
		r := &pol.Broken[i].Rule
		if strings.Contains(r.Program, "/") {
			if p.Program == r.Program || sameProgramFile(p.Program, r.Program) {
				return &pol.Broken[i]
			}
		} else if canonicalProgram(filepath.Base(p.Argv[0])) == canonicalProgram(r.Program) ||
			p.Program != "" && canonicalProgram(filepath.Base(p.Program)) == canonicalProgram(r.Program) {
			return &pol.Broken[i]
		}
	}
	return nil
}

func first(cur, r *PolicyRule) *PolicyRule {
	if cur != nil {
		return cur
	}
	return r
}

func ruledPart(p Part, d Decision, code string, r *PolicyRule, hint string) Part {
	reason := "rule \"" + r.String() + "\" (" + r.Where() + ")"
	if r.Reason != "" {
		reason += ": " + r.Reason
	}
	return Part{Argv: p.Argv, Program: p.Program, Decision: d, Code: code, Reason: reason, Hint: hint, NeverAlways: p.NeverAlways, Dir: p.Dir}
}

// subcommandPrograms take a subcommand (or, for make and just, a target)
// as their first words. Only for them does an approval record subcommand
// words; any other program's approval is for its exact arguments, since
// its words are files or data (rm build, python3 tool.py).
var subcommandPrograms = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`go cargo rustup npm npx pnpm yarn bun deno node-gyp make gmake just task
		pip uv poetry pipenv pdm hatch conda tox nox pre-commit mvn gradle dotnet mix rake bundle composer
		cmake ctest git gh terraform swift flutter dart`) {
		m[n] = true
	}
	return m
})

// NeedsNetwork reports whether the part's program fetches from the
// network with these arguments (its profile's NeedsNetwork): it runs
// without the network unless a person grants it.
func NeedsNetwork(p Part) bool {
	if len(p.Argv) == 0 {
		return false
	}
	f := validators.ProfileOf(canonicalProgram(filepath.Base(p.Argv[0]))).NeedsNetwork
	return f != nil && f(subcommandArgs(p.Argv))
}

// NoAnyArguments says why name may not be allowed with any arguments, or
// "" if it may.
func NoAnyArguments(name string) string { return validators.NoAnyArguments(canonicalProgram(name)) }

// RuleFor is the rule an approval of part records: for a program with
// subcommands, the resolved program and its subcommand words (leading
// arguments that are neither flags nor paths, at most two); otherwise,
// or with no such word, the exact arguments. dir is where the command
// runs (the part's own, when it has one), to tell a path from a word.
func RuleFor(p Part, dir string) PolicyRule {
	r := PolicyRule{Program: p.Program, Decision: RuleAllow}
	if r.Program == "" && len(p.Argv) > 0 {
		r.Program = filepath.Base(p.Argv[0])
	}
	if p.Dir != "" {
		dir = p.Dir
	}
	name := canonicalProgram(filepath.Base(p.Argv[0]))
	if shape, ok := validators.ShapeOf(name); ok {
		a := shape.Approve(subcommandArgs(p.Argv))
		r.Shaped, r.Subcommand, r.Flags, r.Operands, r.AnyOperands = true, a.Words, a.Flags, a.Operands, a.AnyOperands
		r.Bound = validators.Binding(name, dir, a)
		return r
	}
	for _, a := range subcommandArgs(p.Argv) {
		if len(r.Subcommand) == 2 || !subcommandPrograms()[canonicalProgram(filepath.Base(p.Argv[0]))] || !isSubcommandWord(a, dir) {
			break
		}
		r.Subcommand = append(r.Subcommand, a)
	}
	if len(r.Subcommand) == 0 {
		r.Argv = append([]string{}, p.Argv[1:]...)
	}
	return r
}

func isSubcommandWord(a, dir string) bool {
	if !subcommandWord().MatchString(a) || strings.ContainsAny(a, "/") {
		return false
	}
	_, err := os.Lstat(filepath.Join(dir, a))
	return err != nil // an existing file or directory is a path
}
