package execpolicy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/vtexec/vtexec/gitrepo"
	"github.com/vtexec/vtexec/internal/fsutil"
	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/validators"
	"github.com/vtexec/vtexec/workspace"
)

// Limits on what one command string may expand to.
const (
	MaxCommandBytes = 64 << 10
	MaxArgs         = 10000
	MaxArgBytes     = 1 << 20
	maxShellDepth   = 3
	// MaxCommands caps the simple commands of one request (but :, which
	// does nothing), one process after another, and MaxPipelineStages
	// the commands of one pipeline, which run at once, each with its own
	// pipes. A loop of MaxLoopItems words over a body of an if and a
	// command or two fits.
	MaxCommands       = 256
	MaxPipelineStages = 32
)

// Checker checks command strings. The zero value uses plan.TrustedPath and
// the current user's home directory for "~".
type Checker struct {
	TrustedPath string
	Home        string
	// Git answers about repositories; nil is gitrepo.Shared().
	Git gitrepo.Inspector

	vars map[string]string // loop variables of the statement being checked
}

// Check checks src with a zero Checker.
func Check(src string, ws *workspace.Workspace) *Verdict {
	var c Checker
	return c.Check(src, ws)
}

// Check parses src and checks every command in it against ws, whose
// current directory is where the command starts. It never runs anything
// and never changes ws.
//
// A fault of the checker's own (a panic) refuses src with code
// check_failed and is reported on standard error: a stream of checks or
// a server goes on with its next request.
func (c *Checker) Check(src string, ws *workspace.Workspace) (v *Verdict) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(os.Stderr, "vtexec: the checker failed on a command: %v\n%s", p, debug.Stack())
			v = deny(CodeCheckFailed, FaultHint, "vtexec's checker failed on this command: %v", p)
		}
	}()
	if checkFault != nil {
		checkFault(src)
	}
	return c.check(src, ws, 0)
}

// FaultHint is the hint of a request refused for a fault of vtexec's own
// (check_failed), wherever it was recovered.
const FaultHint = "the command was not run: write it another way, and report the fault (vtexec's standard error has it)"

// checkFault, set by tests, runs first in every Check: a fault of the
// checker's own to recover from.
var checkFault func(src string)

func (c *Checker) check(src string, ws *workspace.Workspace, depth int) *Verdict {
	if len(src) > MaxCommandBytes {
		return deny(CodeTooLong, "split the work into shorter commands", "command is longer than %d bytes", MaxCommandBytes)
	}
	if i := strings.IndexByte(src, 0); i >= 0 {
		// The parser would drop it, running another command than sent.
		return deny(CodeParse, "remove the NUL byte; no shell command can contain one", "the command contains a NUL byte at offset %d", i)
	}
	if i := strings.Index(src, "\r\n"); i >= 0 {
		// The parser reads CR LF as a newline; bash keeps the CR.
		return deny(CodeParse, "end lines with LF alone", "the command has a CR LF line ending at offset %d, which bash and vtexec's parser would read differently", i)
	}
	f, err := ParseBash(src)
	if err != nil {
		return deny(CodeParse, "fix the shell syntax (check quotes and brackets)", "cannot parse command: %v", err)
	}
	if len(f.Stmts) == 0 {
		return deny(CodeParse, "send a command to run", "empty command")
	}
	kinds := kindsOf(f)
	if kinds.pattern {
		if v := checkPatterns(f); v != nil {
			return v
		}
	}
	if kinds.cmdSubst {
		pwdSubstitutions(f)
	}
	loops, v := c.unrollLoops(f, ws, kinds.cd)
	if v != nil {
		return v
	}
	// Unrolled bodies are copies of what f held: kinds still holds.
	if kinds.cmdSubst {
		hereDocSubstitutions(f)
	}
	if kinds.testClause {
		if v := testClauses(f); v != nil {
			return v
		}
	}
	var envs map[*syntax.CallExpr][]string
	if kinds.assigns {
		if envs, v = prefixEnv(f); v != nil {
			return v
		}
	}
	if v := forbiddenSyntaxWith(f, loops); v != nil {
		return v
	}
	steps, groups, v := flatten(f, loops)
	if v != nil {
		return v
	}
	if v := tooMany(steps); v != nil {
		return v
	}
	p := &plan.Plan{Groups: make([]plan.Group, len(groups))}
	for i, g := range groups {
		p.Groups[i] = plan.Group{Parent: g.parent, Subshell: g.subshell, ElseOf: g.elseOf}
	}
	cwd := ws.Clone()
	var parts []Part
	cmdIndex := 0
	// The groups entered so far, outermost first; a ( ) group's cds hold
	// only inside it.
	type open struct {
		id    int
		outer *workspace.Workspace
	}
	var opened []open
	for _, st := range steps {
		chain := p.Chain(st.group)
		for len(opened) > 0 && !slices.Contains(chain, opened[len(opened)-1].id) {
			if top := opened[len(opened)-1]; groups[top.id-1].subshell {
				cwd = top.outer
			}
			opened = opened[:len(opened)-1]
		}
		var groupVerdicts []*Verdict
		inSubshell := false
		for _, id := range chain {
			inSubshell = inSubshell || groups[id-1].subshell
		}
		for _, id := range chain[len(opened):] {
			g := groups[id-1]
			opened = append(opened, open{id: id, outer: cwd})
			if g.subshell {
				cwd = cwd.Clone()
			}
			if g.redirs != nil {
				redirs, v := c.groupRedirects(g.redirs, cwd)
				p.Groups[id-1].Redirects = redirs
				if v != nil {
					groupVerdicts = append(groupVerdicts, v)
				}
			}
		}
		groupCmd, stepParts := cmdIndex, len(parts)
		var pipe plan.Pipeline
		for j, stmt := range st.stmts {
			cc := *c
			cc.vars = loops.vars[stmt]
			cmd, cmdParts := cc.command(stmt, cwd, len(st.stmts) > 1, j > 0)
			if call, ok := stmt.Cmd.(*syntax.CallExpr); ok && envs[call] != nil {
				cmd.Env = envs[call]
				if cmd.Builtin != "" {
					cmdParts = append(cmdParts, partOf(cmd.Argv, "", deny(CodeAssignment, "drop the prefix", "a prefix on %s has no effect", cmd.Builtin)))
				}
				cmdParts = append(cmdParts, importPathParts(cmd, cmdParts)...)
			}
			for k := range cmdParts {
				cmdParts[k].Cmd = cmdIndex
			}
			cmdIndex++
			pipe.Cmds = append(pipe.Cmds, cmd)
			parts = append(parts, cmdParts...)
		}
		// A group's redirect is shown with the command it starts at,
		// before it: the group opens its files first.
		var groupParts []Part
		for _, v := range groupVerdicts {
			part := partOf(pipe.Cmds[0].Argv, pipe.Cmds[0].Program, v)
			part.Cmd, part.Dir = groupCmd, pipe.Cmds[0].Dir
			groupParts = append(groupParts, part)
		}
		parts = slices.Insert(parts, stepParts, groupParts...)
		p.Steps = append(p.Steps, plan.Step{Op: st.op, Group: st.group, Negate: st.negate, Pipeline: pipe})
		for _, cmd := range pipe.Cmds {
			if inSubshell && cmd.Builtin == "exit" {
				parts = append(parts, partOf(cmd.Argv, "", deny(CodeControlFlow, "put exit outside the ( )", "exit inside ( ) would end only the ( ) group")))
			}
		}
		if one := pipe.Cmds[0]; len(pipe.Cmds) == 1 && one.Builtin == "cd" && len(one.Argv) == 2 {
			if st.op == plan.Or {
				parts = append(parts, partOf(one.Argv, "", deny(CodeBadUsage, "use cd DIR && COMMAND", "cd after || would leave later commands in a directory known only at run time")))
			}
			if err := cwd.ChdirPlanned(one.Argv[1]); err != nil {
				parts = append(parts, partOf(one.Argv, "", pathVerdict("cd", one.Argv[1], err)))
			}
		}
	}
	if inner, ok := shellScript(p); ok {
		if depth >= maxShellDepth {
			return deny(CodeForbiddenProgram, "send the inner command directly", "shells nested deeper than %d", maxShellDepth)
		}
		return c.check(inner, ws, depth+1)
	}
	verdict := Strictest(parts)
	verdict.Plan, verdict.Parts = p, parts
	return verdict
}

// groupRedirects checks a group's own redirects: output only, since an
// input would feed whichever command inside reads first, unseen.
func (c *Checker) groupRedirects(rs []*syntax.Redirect, cwd *workspace.Workspace) ([]plan.Redirect, *Verdict) {
	redirs, v := c.redirects(rs, cwd)
	if v != nil {
		return redirs, v
	}
	for _, r := range redirs {
		if r.Fd == 0 {
			return redirs, deny(CodeRedirect, "feed the input to the command inside that reads it", "an input redirect on a group, loop or if is not allowed")
		}
	}
	return redirs, nil
}

// tooMany refuses a request with more commands than it may run at once.
func tooMany(steps []step) *Verdict {
	n := 0
	for _, st := range steps {
		if len(st.stmts) > MaxPipelineStages {
			return deny(CodeTooLong, "split the pipeline into several commands, writing to a file in between",
				"a pipeline of %d commands; at most %d", len(st.stmts), MaxPipelineStages)
		}
		for _, s := range st.stmts {
			if call, ok := s.Cmd.(*syntax.CallExpr); !ok || len(call.Args) != 1 || call.Args[0].Lit() != ":" {
				n++
			}
		}
	}
	if n > MaxCommands {
		return deny(CodeTooLong, "split the work into several requests",
			"%d commands in one request; at most %d", n, MaxCommands)
	}
	return nil
}

type step struct {
	negate bool // ! before the pipeline
	op     plan.Op
	group  int            // the innermost group (plan.Step.Group)
	stmts  []*syntax.Stmt // the commands of one pipeline
}

// group is a compound command as flatten found it (plan.Group).
type group struct {
	parent   int
	subshell bool
	elseOf   int
	redirs   []*syntax.Redirect
}

// flatten turns the statements of a file into a list of pipelines and
// the groups they are in. In the AST, && and || are left-associative
// BinaryCmds whose right side is a pipeline or a compound command;
// compound commands are flattened where unrollLoops marked them.
func flatten(f *syntax.File, loops unrolled) ([]step, []group, *Verdict) {
	fl := flattener{loops: loops}
	for _, s := range f.Stmts {
		if v := fl.list(s, plan.Seq, 0); v != nil {
			return nil, nil, v
		}
	}
	return fl.steps, fl.groups, nil
}

type flattener struct {
	loops  unrolled
	steps  []step
	groups []group // group id at groups[id-1]
}

func (fl *flattener) newGroup(g group) int {
	fl.groups = append(fl.groups, g)
	return len(fl.groups)
}

// stmts flattens a group's statements, the first joined by op.
func (fl *flattener) stmts(stmts []*syntax.Stmt, op plan.Op, g int) *Verdict {
	for i, s := range stmts {
		innerOp := plan.Seq
		if i == 0 {
			innerOp = op
		}
		if v := fl.list(s, innerOp, g); v != nil {
			return v
		}
	}
	return nil
}

// ifBody flattens `if COND; then THEN; [elif …;] [else ELSE;] fi` into
// group g: COND's steps, the first joined by op; THEN as a group
// entered if COND succeeded; the rest as a group entered otherwise (an
// elif as an if of its own there; ELSE; or :, as an if whose branch
// does not run succeeds).
func (fl *flattener) ifBody(ic *syntax.IfClause, op plan.Op, g int) *Verdict {
	if v := fl.stmts(ic.Cond, op, g); v != nil {
		return v
	}
	then := fl.newGroup(group{parent: g})
	if v := fl.stmts(ic.Then, plan.And, then); v != nil {
		return v
	}
	otherwise := fl.newGroup(group{parent: g, elseOf: then})
	switch {
	case ic.Else == nil:
		return fl.stmts([]*syntax.Stmt{{Cmd: &syntax.CallExpr{Args: []*syntax.Word{litWord(":")}}}}, plan.Or, otherwise)
	case len(ic.Else.Cond) > 0: // elif
		return fl.ifBody(ic.Else, plan.Or, otherwise)
	default:
		return fl.stmts(ic.Else.Then, plan.Or, otherwise)
	}
}

func (fl *flattener) list(s *syntax.Stmt, op plan.Op, g int) *Verdict {
	if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.AndStmt || b.Op == syntax.OrStmt) {
		if len(s.Redirs) > 0 {
			return deny(CodeRedirect, "put the redirect on one command", "a redirect on a whole list is not allowed")
		}
		if v := fl.list(b.X, op, g); v != nil {
			return v
		}
		next := plan.And
		if b.Op == syntax.OrStmt {
			next = plan.Or
		}
		return fl.list(b.Y, next, g)
	}
	var compound func(inner int) *Verdict
	subshell := false
	switch x := s.Cmd.(type) {
	case *syntax.Block:
		if fl.loops.groups[x] {
			compound = func(inner int) *Verdict { return fl.stmts(x.Stmts, op, inner) }
		}
	case *syntax.Subshell:
		if fl.loops.subshells[x] {
			subshell = true
			compound = func(inner int) *Verdict { return fl.stmts(x.Stmts, op, inner) }
		}
	case *syntax.IfClause:
		if fl.loops.ifs[x] {
			compound = func(inner int) *Verdict { return fl.ifBody(x, op, inner) }
		}
	}
	if compound != nil {
		if s.Negated {
			return deny(CodeControlFlow, "put the ! before a command inside", "! before a group, loop or if is not allowed")
		}
		return compound(fl.newGroup(group{parent: g, subshell: subshell, redirs: s.Redirs}))
	}
	stmts, err := flattenPipe(nil, s)
	if err != nil {
		return err
	}
	fl.steps = append(fl.steps, step{op: op, group: g, stmts: stmts, negate: s.Negated})
	return nil
}

// flattenPipe returns the commands of the pipeline s; a ! before s is
// the caller's.
func flattenPipe(out []*syntax.Stmt, s *syntax.Stmt) ([]*syntax.Stmt, *Verdict) {
	if tc, ok := s.Cmd.(*syntax.TimeClause); ok {
		// "time CMD" runs CMD; the result reports its duration anyway.
		if tc.Stmt == nil || len(s.Redirs) > 0 || tc.Stmt.Negated {
			return nil, deny(CodeControlFlow, "run the command without time; the result reports its duration", "time without a command, with redirects or with !, is not allowed")
		}
		return flattenPipe(out, tc.Stmt)
	}
	b, ok := s.Cmd.(*syntax.BinaryCmd)
	if !ok {
		if _, ok := s.Cmd.(*syntax.CallExpr); !ok && s.Cmd != nil {
			return nil, deny(CodeControlFlow, "send simple commands joined by && ; || and |", "unsupported shell construct")
		}
		return append(out, s), nil
	}
	if b.Op != syntax.Pipe || len(s.Redirs) > 0 {
		return nil, deny(CodeSubshell, "send simple commands joined by && ; || and |", "unsupported grouping of commands")
	}
	for _, part := range []*syntax.Stmt{b.X, b.Y} {
		if part.Negated {
			return nil, deny(CodeControlFlow, "put the ! before the whole pipeline", "! inside a pipeline is not allowed")
		}
	}
	out, err := flattenPipe(out, b.X)
	if err != nil {
		return nil, err
	}
	return flattenPipe(out, b.Y)
}

// command expands and checks one simple command. The returned Cmd is
// filled in as far as checking got, so a refused plan can still be shown;
// the parts hold the decision on it (and on what a wrapper runs).
func (c *Checker) command(s *syntax.Stmt, ws *workspace.Workspace, inPipeline, piped bool) (plan.Cmd, []Part) {
	cmd := plan.Cmd{Dir: ws.Cwd()}
	refused := func(v *Verdict) (plan.Cmd, []Part) { return cmd, []Part{partOf(cmd.Argv, cmd.Program, v)} }
	call, _ := s.Cmd.(*syntax.CallExpr)
	if call == nil || len(call.Args) == 0 {
		return refused(deny(CodeRedirect, "name a program to run", "a redirect without a command is not allowed"))
	}
	argv, v := c.expandWords(call.Args, ws)
	if v != nil {
		return refused(v)
	}
	builtin := validators.ProfileOf(argv[0])
	if builtin.ProgramLookup != nil {
		if lookup := builtin.ProgramLookup(argv); lookup != "" {
			cmd.Argv, cmd.Builtin = argv, lookup
			redirs, v := c.redirects(s.Redirs, ws)
			cmd.Redirects = redirs
			return refused(v)
		}
	}
	if builtin.Unwrap != nil {
		inner, err := builtin.Unwrap(argv)
		if err != nil {
			return refused(findingVerdict(argv[0], err))
		}
		argv = inner
	}
	cmd.Argv = argv
	if argv[0] == "" {
		return refused(deny(CodeNotAllowed, "name a program to run", "empty program name"))
	}
	redirs, v := c.redirects(s.Redirs, ws)
	if v != nil {
		return refused(v)
	}
	cmd.Redirects = redirs
	switch argv[0] {
	case "cd":
		cmd.Builtin = "cd"
		return refused(checkCd(argv, ws, inPipeline))
	case ":":
		cmd.Builtin = ":"
		return refused(nil)
	case "exit":
		cmd.Builtin = "exit"
		return refused(checkExit(argv))
	}
	if prog, ok := workspaceProgram(argv[0], ws); ok {
		cmd.Program = prog
		v := &Verdict{Decision: Ask, Code: CodeWorkspaceProgram, NeverAlways: true,
			Reason: argv[0] + " is a program in the workspace, which vtexec has no validator for (it could be anything, and change)",
			Hint:   "a person must approve it, once or for this session; it runs confined to the workspace"}
		cmd.Asks = append(cmd.Asks, v.Code)
		part := partOf(argv, prog, v)
		part.Dir = ws.Cwd()
		return cmd, []Part{part}
	}
	found, v := c.program(argv[0], ws)
	if v != nil {
		return refused(v)
	}
	prog := found.Path
	cmd.Program = prog
	// The form the program parses as its spec does: what is checked,
	// shown, approved, logged and run.
	argv = validators.Canonical(filepath.Base(argv[0]), argv, ws)
	cmd.Argv = argv
	var parts []Part
	c.validate(filepath.Base(argv[0]), argv, found, ws, 0, &parts)
	for i, p := range parts {
		parts[i].Dir = ws.Cwd()
		if p.Decision == Ask {
			cmd.Asks = append(cmd.Asks, p.Code)
		}
		prof := validators.ProfileOf(filepath.Base(p.Program))
		cmd.Git = cmd.Git || prof.WritesGitDir
		cmd.GoToolchain = cmd.GoToolchain || prof.GoToolchain
	}
	if inPipeline {
		if v := rearrangesInPipeline(parts); v != nil {
			parts = append(parts, partOf(argv, prog, v))
		}
	}
	if piped || readsStdin(redirs) {
		programOnStdin(parts)
	}
	if v := timeoutLeavesGroup(parts, piped); v != nil {
		parts = append(parts, partOf(argv, prog, v))
	}
	return cmd, parts
}

// timeoutLeavesGroup refuses a GNU timeout that would put itself in a new
// process group: it does unless --foreground, and only the first command
// of a pipeline leads the group already. The run's own timeout kills the
// pipeline's group, which such a timeout, and what it runs, would leave.
func timeoutLeavesGroup(parts []Part, piped bool) *Verdict {
	for i, p := range parts {
		if len(p.Argv) == 0 || (i == 0 && !piped) {
			continue
		}
		name := filepath.Base(p.Argv[0])
		if leaves := validators.ProfileOf(name).LeavesProcessGroup; leaves != nil && leaves(p.Argv) {
			return deny(CodeBadUsage, "put "+name+" first in the pipeline, add --foreground, or leave it out (vtexec has a timeout of its own)",
				"%s inside a pipeline or under another wrapper starts a process group of its own, which vtexec's timeout would not kill", name)
		}
	}
	return nil
}

// readsStdin reports whether a redirect feeds standard input from a file.
func readsStdin(rs []plan.Redirect) bool {
	for _, r := range rs {
		if r.Fd == 0 && ((r.Kind == plan.Read && r.Path != "/dev/null") || r.Kind == plan.Input) {
			return true
		}
	}
	return false
}

// programOnStdin marks the ask of an interpreter whose standard input is
// a pipe or a file: it runs that as code, which no one sees in the
// question, so it is inline code, never approved always.
func programOnStdin(parts []Part) {
	for i, p := range parts {
		if len(p.Argv) == 0 || p.Decision != Ask {
			continue
		}
		for _, n := range programNames(filepath.Base(p.Argv[0]), plan.Program{Path: p.Program}) {
			prof := validators.ProfileOf(n)
			if prof.RunsInputAsProgram && (prof.ProgramFromArgs == nil || !prof.ProgramFromArgs(p.Argv)) {
				parts[i].Code, parts[i].NeverAlways = CodeInlineCode, true
				parts[i].Reason = n + " reads its program from standard input, which is a pipe or a file here"
				parts[i].Hint = "run a script file instead (" + n + " script), so the person sees what runs"
				break
			}
		}
	}
}

// rearrangesInPipeline refuses cp and mv (also under a wrapper) inside a
// pipeline: its commands run at the same time, so what they open cannot
// be checked again after cp or mv has run.
func rearrangesInPipeline(parts []Part) *Verdict {
	for _, p := range parts {
		if len(p.Argv) > 0 && validators.ProfileOf(filepath.Base(p.Argv[0])).RearrangesTree {
			name := filepath.Base(p.Argv[0])
			return deny(CodeBadUsage, "run "+name+" as a step of its own: "+name+" ... && NEXT",
				"%s inside a pipeline: the other commands run at the same time and could open paths %s is changing", name, name)
		}
	}
	return nil
}

func checkCd(argv []string, ws *workspace.Workspace, inPipeline bool) *Verdict {
	if inPipeline {
		return deny(CodeBadUsage, "run cd on its own, joined with && to the next command", "cd inside a pipeline has no effect")
	}
	if len(argv) != 2 || strings.HasPrefix(argv[1], "-") {
		return deny(CodeBadUsage, "use cd DIR with a directory inside the workspace", "cd takes exactly one directory")
	}
	if err := ws.Clone().ChdirPlanned(argv[1]); err != nil {
		return pathVerdict("cd", argv[1], err)
	}
	return nil
}

// checkExit allows exit and exit N, N from 0 to 255: the run ends there
// with that status (the last command's without N), as the shell's does;
// inside a pipeline it ends only its own part.
func checkExit(argv []string) *Verdict {
	if len(argv) == 1 {
		return nil
	}
	if len(argv) > 2 {
		return deny(CodeBadUsage, "use exit N with one number", "exit takes at most one number")
	}
	n, err := strconv.Atoi(argv[1])
	if err != nil || n < 0 || n > 255 {
		return deny(CodeBadUsage, "use exit N with N from 0 to 255", "exit %q: not a status from 0 to 255", argv[1])
	}
	return nil
}

func forbiddenProgram(name string) *Verdict {
	return forbiddenAs(name, plan.Program{}, programNames(name, plan.Program{}))
}

// forbiddenAs refuses name if any of its names (programNames(name,
// prog)) is a forbidden program; prog is the file it runs, if known.
func forbiddenAs(name string, prog plan.Program, names []string) *Verdict {
	if prog.Path != "" && isSelf(prog) {
		return deny(CodeForbiddenProgram, "send the command itself; vtexec runs it",
			"%s is vtexec itself (under another name): a command may not run vtexec", name)
	}
	for _, n := range names {
		if f, ok := validators.Forbidden(n); ok {
			return deny(CodeForbiddenProgram, f.Hint, "%s is not allowed: %s", name, f.Reason)
		}
	}
	return nil
}

// maxWrapperDepth bounds wrappers inside wrappers (timeout 5 nice env …).
const maxWrapperDepth = 8

// validate checks one command whose program has been found and appends
// its part: forbidden programs, then the validator, then, for programs not
// on the allowlist, the developer-tool rules. A wrapper's command is
// checked as if it stood alone and gets a part of its own.
func (c *Checker) validate(name string, argv []string, prog plan.Program, ws *workspace.Workspace, depth int, parts *[]Part) {
	add := func(v *Verdict) { *parts = append(*parts, partOf(argv, prog.Path, v)) }
	if v := forbiddenProgram(name); v != nil {
		add(v)
		return
	}
	val, ok := validators.Lookup(name)
	if !ok {
		add(unlistedVerdict(name, argv, prog, ws, name+" is not on the allowlist"))
		return
	}
	call := &validators.Call{Argv: argv, WS: ws, Git: c.Git}
	w, isWrapper := val.(validators.Wrapper)
	if !isWrapper {
		err := val.Check(call)
		if errors.Is(err, validators.ErrUnlisted) {
			add(unlistedVerdict(name, argv, prog, ws, name+" "+firstOperand(argv[1:])+" is not a use the allowlist covers"))
			return
		}
		add(findingVerdict(name, err))
		return
	}
	inner, err := w.Unwrap(call)
	outer := findingVerdict(name, err)
	if outer != nil && outer.Decision == Ask {
		outer.NeverAlways = true // what a wrapper adds is unseen: never "always"
	}
	add(outer)
	if inner == nil || (outer != nil && outer.Decision == Deny) {
		return
	}
	if depth >= maxWrapperDepth {
		add(deny(CodeBadUsage, "run the command with fewer wrappers", "wrappers nested deeper than %d", maxWrapperDepth))
		return
	}
	innerProg, v := c.program(inner[0], ws)
	if v != nil {
		*parts = append(*parts, partOf(inner, "", v))
		return
	}
	c.validate(filepath.Base(inner[0]), inner, innerProg, ws, depth+1, parts)
}

// unlistedVerdict decides on a program, or a use of one, that no
// validator allows: forbidden if what it runs is, the developer-tool
// rules, paths outside refused, and otherwise a person asked.
func unlistedVerdict(name string, argv []string, prog plan.Program, ws *workspace.Workspace, reason string) *Verdict {
	// An unlisted program is also what the file it runs is: a link
	// named tool pointing at bash is bash.
	names := programNames(name, prog) // links followed once for both
	if v := forbiddenAs(name, prog, names); v != nil {
		return v
	}
	if v := devToolVerdict(name, names, argv, ws); v != nil {
		return v
	}
	if v := outsidePathArg(name, argv[1:], ws); v != nil {
		return v
	}
	return &Verdict{Decision: Ask, Code: CodeNotAllowed, Reason: reason,
		Hint: "a person must approve it (vtexec describe lists what runs without asking)"}
}

// importPathParts asks about a Python program run with a PYTHONPATH
// prefix: it imports modules from those workspace directories before
// its own, so what runs is code the workspace holds.
func importPathParts(cmd plan.Cmd, parts []Part) []Part {
	path := ""
	for _, kv := range cmd.Env {
		if v, ok := strings.CutPrefix(kv, "PYTHONPATH="); ok {
			path = v
		}
	}
	if path == "" {
		return nil
	}
	var out []Part
	for _, p := range parts {
		name := filepath.Base(p.Program)
		if p.Decision != Allow || !validators.ProfileOf(name).PythonProgram {
			continue
		}
		out = append(out, partOf(p.Argv, p.Program, &Verdict{Decision: Ask, Code: CodeNotAllowed, NeverAlways: true,
			Reason: fmt.Sprintf("PYTHONPATH=%s makes %s import modules from the workspace before its own", path, name),
			Hint:   "drop the PYTHONPATH prefix, or a person approves it once or for this session"}))
	}
	return out
}

func findingVerdict(name string, err error) *Verdict {
	if err == nil {
		return nil
	}
	var f *validators.Finding
	if errors.As(err, &f) {
		d := Deny
		if f.Ask {
			d = Ask
		}
		return &Verdict{Decision: d, Code: f.Code, Reason: f.Reason, Hint: f.Hint, NeverAlways: f.NeverAlways}
	}
	return deny(CodeBadUsage, "", "%s: %v", name, err)
}

// Program is the trusted program argv0 runs, as the check finds it (a
// name on the trusted PATH, the same file by path, a virtual
// environment's interpreter), or an error saying why there is none.
func (c *Checker) Program(argv0 string, ws *workspace.Workspace) (string, error) {
	prog, v := c.program(argv0, ws)
	if v != nil {
		return "", errors.New(v.Reason + " (" + v.Hint + ")")
	}
	return prog.Path, nil
}

// program finds the executable for argv0 on the trusted PATH. A path is
// accepted only if it names that same file.
func (c *Checker) program(argv0 string, ws *workspace.Workspace) (plan.Program, *Verdict) {
	name := filepath.Base(argv0)
	target, isVenv := venvTarget(argv0, ws)
	if isVenv {
		if prog, ok := c.trustedAs(target); ok {
			return plan.Program{Path: prog}, nil
		}
	}
	if strings.Contains(argv0, "/") && !filepath.IsAbs(argv0) {
		if isVenv {
			dir := filepath.Dir(target)
			return plan.Program{}, deny(CodeNotAllowed, "a person can add "+dir+" to their policy "+extraPathLine(dir)+", or make the environment from an interpreter on the trusted PATH",
				"%s is a virtual environment's interpreter, and it leads to %s, which is not on the trusted PATH", argv0, target)
		}
		return plan.Program{}, deny(CodeNotAllowed, "run allowlisted programs by name, e.g. "+name,
			"%s is a path into the workspace, not a trusted program", argv0)
	}
	if validators.ShellBuiltin(name) && !strings.Contains(argv0, "/") {
		return plan.Program{}, deny(CodeShellBuiltin, "run programs directly; vtexec has no shell state", "%s is a shell builtin: vtexec runs programs directly, without a shell", name)
	}
	found, ok := plan.LookProgram(name, c.trustedPath())
	prog := found.Path
	if !ok {
		if v := forbiddenProgram(name); v != nil {
			return plan.Program{}, v
		}
		hint := "use a program installed on the system PATH"
		if dir := userPathDir(name, c.trustedPath()); dir != "" {
			hint = fmt.Sprintf("%s is in %s, which is not on the trusted PATH: a person can add it to their policy %s", name, dir, extraPathLine(dir))
		}
		return plan.Program{}, deny(CodeNotAllowed, hint, "no program %q on the trusted PATH", name)
	}
	if argv0 != name && !fsutil.SameFile(argv0, prog) {
		return plan.Program{}, deny(CodeNotAllowed, "run it by name: "+name, "%s is not the trusted %s (%s)", argv0, name, prog)
	}
	if ws.Contains(prog) {
		return plan.Program{}, deny(CodeNotAllowed, "programs inside the workspace are not trusted", "%s lies inside the workspace", prog)
	}
	return found, nil
}

// extraPathLine is the line of the user's policy that puts dir on the
// trusted PATH.
func extraPathLine(dir string) string {
	return fmt.Sprintf("([paths] extra = [%q] in ~/.config/vtexec/policy.toml)", dir)
}

// userPathDir is the directory of the user's own PATH (vtexec's
// environment) where a program called name is, or "": to say where a
// program the trusted PATH lacks is. Nothing is run or trusted from it.
// Only directories the trusted PATH does not hold are searched: the
// program is in none of those.
func userPathDir(name, trusted string) string {
	if strings.Contains(name, "/") {
		return ""
	}
	var others []string
	trustedDirs := filepath.SplitList(trusted)
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if filepath.IsAbs(dir) && !slices.Contains(trustedDirs, dir) {
			others = append(others, dir)
		}
	}
	if len(others) == 0 {
		return ""
	}
	if p, ok := plan.LookPath(name, strings.Join(others, string(filepath.ListSeparator))); ok {
		return filepath.Dir(p)
	}
	return ""
}

// trustedAs returns target as found in a directory of the trusted PATH
// (a virtual environment's interpreter runs as that file, under its own
// name, from which Python finds the environment; the link itself is never
// run, so a link changed after the check changes nothing). Any directory
// of the trusted PATH will do, not only the first that has the name: a
// user's toolchain comes after the system's.
func (c *Checker) trustedAs(target string) (string, bool) {
	for _, dir := range filepath.SplitList(c.trustedPath()) {
		if prog, ok := plan.LookPath(filepath.Base(target), dir); ok && fsutil.SameFile(prog, target) {
			return prog, true
		}
	}
	return "", false
}

// venvTarget reports whether argv0 is the interpreter of a virtual
// environment in the workspace (DIR/bin/python, DIR/pyvenv.cfg beside
// bin) that leads outside the workspace to an interpreter of the same
// name, and returns where it leads.
func venvTarget(argv0 string, ws *workspace.Workspace) (string, bool) {
	name := filepath.Base(argv0)
	if !strings.Contains(argv0, "/") || !validators.ProfileOf(canonicalProgram(name)).VenvInterpreter {
		return "", false
	}
	bin, err := ws.Resolve(filepath.Dir(argv0), workspace.Read)
	if err != nil || !ws.Contains(bin) || filepath.Base(bin) != "bin" {
		return "", false
	}
	if fi, err := os.Lstat(filepath.Join(filepath.Dir(bin), "pyvenv.cfg")); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	target, err := filepath.EvalSymlinks(filepath.Join(bin, name))
	if err != nil || ws.Contains(target) || canonicalProgram(filepath.Base(target)) != canonicalProgram(name) {
		return "", false
	}
	return target, true
}

// workspaceProgram reports whether argv0 is a path ("./bin/tool",
// "bin/tool", an absolute path) to an executable regular file inside the
// workspace, and returns its real path.
func workspaceProgram(argv0 string, ws *workspace.Workspace) (string, bool) {
	if !strings.Contains(argv0, "/") {
		return "", false
	}
	real, err := ws.Resolve(argv0, workspace.Read)
	if err != nil || !ws.Contains(real) {
		return "", false
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return "", false
	}
	return real, true
}

// Path is the trusted PATH the checker looks programs up on.
func (c *Checker) Path() string { return c.trustedPath() }

func (c *Checker) trustedPath() string {
	if c.TrustedPath != "" {
		return c.TrustedPath
	}
	return plan.TrustedPath
}

func pathVerdict(program, arg string, err error) *Verdict {
	var be *workspace.BoundaryError
	if errors.As(err, &be) {
		if be.Code == workspace.AskFirst {
			return &Verdict{Decision: Ask, NeverAlways: true, Code: string(be.Code), Reason: program + ": " + be.Error(), Hint: be.Hint()}
		}
		return &Verdict{Decision: Deny, Code: string(be.Code), Reason: program + ": " + be.Error(), Hint: be.Hint()}
	}
	return deny(string(workspace.Invalid), "use a path inside the workspace", "%s: %q: %v", program, arg, err)
}

func hasDotDot(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if c == ".." {
			return true
		}
	}
	return false
}

// outsidePathArg refuses, for a program vtexec has no validator for, an
// argument (or a --flag=value's value) that names an existing path which
// resolves outside the workspace, or an absolute or ".." path that would
// lie outside once created. Which arguments such a program opens is
// unknown, so a person would be asked to approve reading ~/.ssh, or a
// link to it, without seeing it; refusing is clearer. /dev/null is
// harmless and allowed.
func outsidePathArg(name string, args []string, ws *workspace.Workspace) *Verdict {
	for _, a := range args {
		if i := strings.IndexByte(a, '='); strings.HasPrefix(a, "-") && i > 0 {
			a = a[i+1:]
		}
		if a == "" || a == "/dev/null" || strings.HasPrefix(a, "-") {
			continue
		}
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(ws.Cwd(), p)
		}
		// An existing path, or one that is absolute or climbs with "..":
		// a path to be created there is where the program would write.
		if _, err := os.Lstat(p); err != nil && !filepath.IsAbs(a) && !hasDotDot(a) {
			continue
		}
		if _, err := ws.Resolve(a, workspace.Read); err != nil {
			var be *workspace.BoundaryError
			if errors.As(err, &be) && be.Code == workspace.Invalid {
				continue // not a usable path: an argument of another kind
			}
			v := pathVerdict(name, a, err)
			v.Hint = "name files inside the workspace; " + name + " is not on the allowlist, so a path outside it is refused rather than asked about"
			return v
		}
	}
	return nil
}
