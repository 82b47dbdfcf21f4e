package hook

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/execpolicy"
	"github.com/vtexec/vtexec/internal/fsutil"
	"github.com/vtexec/vtexec/validators"
)

// quote single-quotes s for bash: inside single quotes no byte is
// special, and each quote in s ends them, is written escaped, and opens
// them again.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// RewriteLine is the bash line that runs command through vtexec instead:
// exe run --no-prompt --workspace W [--cwd C] [--session S] -- command,
// every word single-quoted so bash passes each on exactly as written.
// cwd and session may be empty.
func RewriteLine(exe, workspace, cwd, session, command string) string {
	return rewriteLine(exe, workspace, cwd, session, "", command)
}

// ApprovedLine is RewriteLine for a command a person is asked about in
// the harness: it runs through vtexec with the approval id vtexec gave
// for exactly this command, cwd and session, answered once — so a yes
// runs it inside vtexec's box, once, and nothing else.
func ApprovedLine(exe, workspace, cwd, session, approvalID, command string) string {
	return rewriteLine(exe, workspace, cwd, session, approvalID, command)
}

func rewriteLine(exe, workspace, cwd, session, approvalID, command string) string {
	words := []string{exe, "run", "--no-prompt", "--workspace", workspace}
	if cwd != "" {
		words = append(words, "--cwd", cwd)
	}
	if session != "" {
		words = append(words, "--session", session)
	}
	if approvalID != "" {
		words = append(words, "--approve", "once", "--approval-id", approvalID)
	}
	words = append(words, "--", command)
	for i, w := range words {
		words[i] = quote(w)
	}
	return strings.Join(words, " ")
}

// bashWords are the builtins and keywords of bash 5.2 (compgen -b -k);
// TestBashWordsAreBashs compares them with the installed bash. Bash runs
// its builtin, not the program vtexec checked under the same name, and a
// builtin can change what later words run (hash, enable, cd with CDPATH):
// no command whose first word is one of these runs outside vtexec.
var bashWords = sync.OnceValue(func() []string {
	return strings.Fields(`. : [ alias bg bind break builtin caller cd command compgen complete compopt
		continue declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs
		kill let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source
		suspend test times trap true type typeset ulimit umask unalias unset wait
		if then else elif fi case esac for select while until do done in function time { } ! [[ ]] coproc`)
})

// bashEnv are the variables a non-interactive bash reads from its
// environment that change what a plain command runs or where: a file it
// sources first, how it searches, splits, globs and changes directory,
// options, compatibility and loadable builtins. Exported functions
// (BASH_FUNC_name%%) are checked apart.
var bashEnv = []string{"BASH_ENV", "ENV", "CDPATH", "GLOBIGNORE", "IFS", "SHELLOPTS", "BASHOPTS",
	"POSIXLY_CORRECT", "BASH_COMPAT", "BASH_LOADABLES_PATH", "EXECIGNORE", "BASH_XTRACEFD", "PS4"}

// shellOf says, for each harness, why its shell tool's bash may run
// other code than the command (""  for a plain bash -c): Gemini CLI
// 0.61.0 runs bash -c "shopt -u …; COMMAND"; Codex runs a login shell,
// which reads the user's profile; Claude Code first loads a snapshot of
// the user's shell, with its functions and aliases.
var shellOf = map[Harness]string{
	Gemini: "",
	Codex:  "Codex runs commands in a login shell (bash -lc), which first runs the user's profile files, where a function or alias may stand in for any program",
	Claude: "Claude Code runs commands in a shell that first loads a snapshot of the user's shell, with its functions and aliases",
}

// plainForBash reports why command, which vtexec allowed, is not safe for
// bash to run itself, outside vtexec ("" if it is). Safe means: bash
// would run exactly the argv vtexec checked, and nothing vtexec's runner
// adds was needed to make it safe. So: a harness whose bash is a plain
// bash -c (shellOf), with none of the variables bash obeys (bashEnv,
// exported functions) in the harness's environment; simple commands
// joined only by ;, &&, || or |; words of plain text (quoted or not) with
// no expansion, glob, brace, tilde or escape; no redirection,
// here-document, assignment or background job; no builtin or keyword of
// bash as a command (bashWords); each program found by bash's PATH
// (relative entries from dir) where vtexec found it; no git (bash would
// let it run the repository's configured programs, which vtexec's git
// environment turns off); and decided by vtexec's built-in rules, not by
// a policy rule or approval (which may grant network or tool presets that
// only vtexec's box applies).
func plainForBash(h Harness, command string, d vtexec.Decision, env bashEnviron, dir string) string {
	if why, ok := shellOf[h]; !ok {
		return "vtexec does not know how " + string(h) + " starts its shell"
	} else if why != "" {
		return why
	}
	if why := env.hostile(); why != "" {
		return why
	}
	f, err := execpolicy.ParseBash(command)
	if err != nil {
		return "it does not parse: " + err.Error()
	}
	for _, st := range f.Stmts {
		if why := plainStmt(st); why != "" {
			return why
		}
	}
	if d.Rule != "" {
		return "it is allowed by a policy rule or approval (" + d.Rule + "), which may rely on vtexec's box"
	}
	typed := typedArgvs(f)
	for _, argv := range typed {
		if len(argv) > 0 && slices.Contains(bashWords(), argv[0]) {
			return "bash would run its own " + argv[0] + " (a builtin or keyword), not the program vtexec checked"
		}
	}
	if len(typed) == len(d.Commands) {
		for i, c := range d.Commands {
			if !slices.Equal(typed[i], c.Argv) {
				return "vtexec checked it as " + vtexec.DisplayArgv(c.Argv) + ", which bash would not pass as typed"
			}
		}
	} else {
		return "bash would run other commands than vtexec checked"
	}
	for _, c := range d.Commands {
		if c.Program == "" {
			return "vtexec runs " + c.Argv[0] + " itself; bash would run its own"
		}
		if validators.ProfileOf(filepath.Base(c.Program)).ConfiguredByRepository {
			return "git would run the repository's configured programs (hooks, filters, pagers) without vtexec's git environment"
		}
		if strings.Contains(c.Argv[0], "/") {
			return "the program is named by a path (" + c.Argv[0] + ")"
		}
		if got := lookPath(c.Argv[0], env.get("PATH"), dir); !fsutil.SameFile(got, c.Program) {
			return "bash would run " + c.Argv[0] + " from " + orNone(got) + ", not vtexec's " + c.Program
		}
	}
	return ""
}

// bashEnviron is the environment the harness's bash starts with.
type bashEnviron struct {
	get  func(string) string
	list []string // every NAME=value, for exported functions
}

// hostile says which variable of the environment bash would obey, or "".
func (e bashEnviron) hostile() string {
	for _, name := range bashEnv {
		if e.get != nil && e.get(name) != "" {
			return "the harness's environment sets " + name + ", which bash obeys and vtexec's check does not see"
		}
	}
	for _, kv := range e.list {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "BASH_FUNC_") {
			return "the harness's environment exports a bash function (" + name + "), which bash would run in place of a program"
		}
	}
	return ""
}

func plainStmt(st *syntax.Stmt) string {
	switch {
	case st.Background || st.Coprocess:
		return "it starts a background job"
	case len(st.Redirs) > 0:
		return "it has a redirection or here-document"
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 {
			return "it sets variables"
		}
		for _, w := range c.Args {
			if _, plain := execpolicy.LiteralWord(w); !plain {
				return "the word " + quote(wordText(w)) + " is not plain text (an expansion, glob, brace, tilde or escape)"
			}
		}
		return ""
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt, syntax.Pipe:
		default:
			return "it uses " + c.Op.String()
		}
		if why := plainStmt(c.X); why != "" {
			return why
		}
		return plainStmt(c.Y)
	case nil:
		return ""
	}
	return "it is not a simple command (a subshell, block, loop, test or function)"
}

// typedArgvs are the argument lists bash passes for the simple commands
// of f, in order; its words are plain (plainStmt).
func typedArgvs(f *syntax.File) [][]string {
	var out [][]string
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		var argv []string
		for _, w := range call.Args {
			text, _ := execpolicy.LiteralWord(w)
			argv = append(argv, text)
		}
		out = append(out, argv)
		return false
	})
	return out
}

func wordText(w *syntax.Word) string {
	var b strings.Builder
	_ = syntax.NewPrinter().Print(&b, w)
	return b.String()
}

// lookPath finds name as bash would with PATH pathEnv, from directory dir.
func lookPath(name, pathEnv, dir string) string {
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "nowhere"
	}
	return s
}
