package validators

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/gitrepo"
	"github.com/vtexec/vtexec/workspace"
)

// git (2.39). git is a language of its own: global options, then a
// subcommand with its own flags, then revisions and pathspecs. Only the
// subcommands below are known; anything else (an alias from the
// configuration can be "!any shell command", and git-NAME programs on the
// PATH are subcommands too) is refused. Subcommands that only read run;
// those that change the repository or the working tree ask a person
// (code git_writes), and those that reach another repository ask with
// code git_network. Flags that run a program, write a file vtexec cannot
// see or read one outside the workspace are refused even then.
//
// The configuration of the repository is the other channel: it can name
// programs git runs on a plain "git status". The runner's environment (see
// progenv.Env) overrides the keys with fixed names; before any subcommand
// runs, inspect (git_repo.go) asks git itself for the configuration and
// refuses a repository that defines one of the keys whose names it chooses
// itself (diff.<driver>.textconv, filter.<driver>.clean, ...), or whose
// configuration a command vtexec allows could rewrite.

// Codes of git findings.
const (
	// CodeGitWrites asks: the subcommand changes the repository or the
	// working tree.
	CodeGitWrites = codes.GitWrites
	// CodeGitNetwork asks: the subcommand reaches another repository.
	CodeGitNetwork = codes.GitNetwork
	// CodeGitConfig refuses: the repository's configuration makes git run
	// a program, or could be changed behind vtexec's back.
	CodeGitConfig = codes.GitUnsafeConfig
	// CodeGitConfigWrite refuses: the subcommand writes git's
	// configuration (or .git/worktrees, .git/modules), which every box
	// keeps read-only.
	CodeGitConfigWrite = codes.GitConfigWrite
	// CodeGitLFS asks: the repository's configuration runs git-lfs.
	CodeGitLFS = codes.GitLfs
	// CodeUnknownSubcommand refuses a subcommand vtexec does not know.
	CodeUnknownSubcommand = codes.UnknownSubcommand
)

// gitClass is what a subcommand does to the world.
type gitClass int

const (
	gitRead    gitClass = iota // reads the repository and the working tree
	gitWrite                   // changes the repository or the working tree
	gitNetwork                 // talks to another repository
	// gitConfigWrite writes git's configuration or the git directory's
	// other read-only places (worktrees/, modules/): refused, since no
	// boxed program may change what git runs later, and git could not.
	gitConfigWrite
)

// gitCmd is one git subcommand.
type gitCmd struct {
	spec  *Spec
	class gitClass
	// what says what it changes or where it goes, for the ask.
	what string
	// check, if set, checks the operands (and anything else) and may
	// change the class (git branch only lists without operands). Without
	// it, operands are revisions or paths (see gitRevOrPath) and those
	// after "--" pathspecs.
	check func(g *gitCall, a *gitArgs) (gitClass, error)
	// checkDecides: check's class stands even below class (checkout -b
	// NAME alone only makes a branch where HEAD is).
	checkDecides bool
	// lastArgDefault are flags whose value may be omitted when they come
	// last (git branch --contains means --contains HEAD).
	lastArgDefault []string
	// noInspect skips the repository inspection: the subcommand reads no
	// repository (version, help, clone, init).
	noInspect bool
	// subs are the subcommands of a dispatcher (git stash push, ...).
	subs map[string]*gitCmd
}

// gitCall is one git command line being checked.
type gitCall struct {
	*Call
	// ws has its current directory where git will run (after -C).
	ws *workspace.Workspace
	// dir is that directory.
	dir string
	// repoOpts are --git-dir and --work-tree as given; repoArgs the same
	// with absolute paths, for the git processes that inspect the
	// repository.
	repoOpts map[string]string
	repoArgs []string
	// sub is the subcommand name.
	sub string
	// repo is the repository gitLocateRepo found, once located is set.
	repo    *gitrepo.Repo
	located bool
	// answers are git's, for dir and repoArgs, once located is set.
	answers *gitrepo.Answers
	// what says what the (sub)subcommand changes, for the ask.
	what string
}

// at returns a Call for paths relative to where git runs.
func (g *gitCall) at() *Call { return &Call{Argv: g.Argv, WS: g.ws, Git: g.Git} }

// inspector is who answers about repositories.
func (g *gitCall) inspector() gitrepo.Inspector {
	if g.Git != nil {
		return g.Git
	}
	return gitrepo.Shared()
}

// gitArgs is a subcommand's parsed command line.
type gitArgs struct {
	*Args
	// revs are the operands before "--", paths those after it.
	revs, paths []string
	// dashdash reports whether "--" was given.
	dashdash bool
	// raw are the arguments as given.
	raw []string
}

const (
	gitWritesFile   = "writes a file vtexec cannot confine; redirect the output instead"
	gitInteractive  = "needs a terminal; vtexec commands have none"
	gitNoTemplate   = "copies a template directory (hooks, config) that vtexec does not check"
	gitNoConfigFlag = "sets configuration for this run, which can name programs for git to run; a person can run it outside vtexec"
)

func registerGit() {
	register("git", gitValidator{}, gitEntry)
}

// gitGlobalFlags are git's own options, before the subcommand.
var gitGlobalFlags = []Flag{
	{Short: "C", Arg: Text},
	{Long: "git-dir", Arg: Text}, {Long: "work-tree", Arg: Text},
	{Long: "bare", Forbid: "makes the current directory the git directory; name it with --git-dir=DIR"},
	{Long: "namespace", Arg: Text},
	{Short: "P", Long: "no-pager"},
	{Long: "no-replace-objects"}, {Long: "literal-pathspecs"}, {Long: "glob-pathspecs"},
	{Long: "noglob-pathspecs"}, {Long: "icase-pathspecs"}, {Long: "no-optional-locks"},
	{Long: "html-path"}, {Long: "man-path"}, {Long: "info-path"},
	{Long: "list-cmds", Arg: Text, Optional: true},
	{Short: "v", Long: "version"}, {Short: "h", Long: "help"},
	{Short: "c", Arg: Text, Forbid: gitNoConfigFlag},
	{Long: "config-env", Arg: Text, Forbid: gitNoConfigFlag},
	{Long: "exec-path", Arg: Text, Optional: true, Forbid: "chooses the directory git runs its subcommands from"},
	{Short: "p", Long: "paginate", Forbid: "starts a pager; vtexec captures the output and has no terminal (use --no-pager or nothing)"},
	{Long: "super-prefix", Arg: Text, Forbid: "is internal to git"},
}

var gitGlobalSpec = &Spec{Name: "git", Flags: gitGlobalFlags}

// checkGit checks a git command line.
func checkGit(c *Call) error {
	g := &gitCall{Call: c, ws: c.WS.Clone(), dir: c.WS.Cwd(), repoOpts: map[string]string{}}
	rest, err := g.globals(c.Argv[1:])
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return nil // git alone prints its usage
	}
	g.sub = rest[0]
	cmd, ok := gitCommands()[g.sub]
	if !ok {
		return refuse(CodeUnknownSubcommand, "known git subcommands: "+gitSubList(),
			"git %s is not a subcommand vtexec knows: an alias or a git-%s program could run anything", g.sub, g.sub)
	}
	args := rest[1:]
	if len(args) == 1 && args[0] == "-h" {
		return nil // usage
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--help" {
			return refuse(CodeForbiddenFlag, "use git "+g.sub+" -h for a usage summary",
				"git %s --help opens the manual in a viewer the configuration chooses", g.sub)
		}
	}
	class, err := g.run(cmd, args)
	if err != nil {
		return err
	}
	var note *Finding
	if !cmd.noInspect {
		if note, err = g.inspect(class); err != nil {
			return err
		}
	}
	return gitVerdict(g, class, note)
}

// globals reads git's own options and returns the arguments from the
// subcommand on. "--help" and "--version" stand for the help and version
// subcommands, as in git.
func (g *gitCall) globals(args []string) ([]string, error) {
	gitGlobalSpec.index()
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--help" || arg == "-h" {
			return append([]string{"help"}, args[i+1:]...), g.resolveRepoOpts()
		}
		if arg == "--version" || arg == "-v" {
			return append([]string{"version"}, args[i+1:]...), g.resolveRepoOpts()
		}
		if !strings.HasPrefix(arg, "-") {
			return args[i:], g.resolveRepoOpts()
		}
		f, value, attached, last := gitGlobalOption(args, i)
		if f == nil {
			return nil, refuse(CodeUnknownFlag, "allowed git options before the subcommand: "+gitGlobalSpec.allowedList(),
				"git: unknown option %s", arg)
		}
		if f.Forbid != "" && !(f.Short == "c" && gitHarmlessSetting(value)) {
			return nil, gitGlobalSpec.forbidden(f, arg)
		}
		if f.Arg != NoArg && !attached && !f.Optional && last == i {
			return nil, refuse(CodeBadUsage, "give "+arg+" its value", "git: %s needs a value", arg)
		}
		if f.Arg == NoArg && attached {
			return nil, refuse(CodeBadUsage, "drop the =value", "git: %s takes no value", arg)
		}
		if err := g.global(f, arg, value); err != nil {
			return nil, err
		}
		i = last
	}
	return nil, g.resolveRepoOpts()
}

// gitHarmlessSetting reports whether git -c KEY=VALUE sets a key that
// names no program or file: who a commit is by, and how git prints.
func gitHarmlessSetting(kv string) bool {
	key, _, ok := strings.Cut(kv, "=")
	switch strings.ToLower(key) {
	case "user.name", "user.email", "author.name", "author.email", "committer.name", "committer.email",
		"color.ui", "core.quotepath", "advice.detachedhead", "init.defaultbranch":
		return ok
	}
	return false
}

// gitGlobalOption reads the global option at args[i]. Each stands alone:
// no clusters, "--name=value" attaches a value, and one that takes a
// value and has none attached (-C, -c) takes the next word. It returns
// the flag (nil if unknown), its value, whether the value was attached,
// and the index of the last word the option used.
func gitGlobalOption(args []string, i int) (f *Flag, value string, attached bool, last int) {
	gitGlobalSpec.index()
	arg := args[i]
	name, value, attached := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	if strings.HasPrefix(arg, "--") {
		f = gitGlobalSpec.long[name]
	} else if len(arg) == 2 {
		f, value, attached = gitGlobalSpec.short[arg[1:]], "", false
	}
	last = i
	if f != nil && f.Arg != NoArg && !attached && !f.Optional && i+1 < len(args) {
		last, value = i+1, args[i+1]
	}
	return f, value, attached, last
}

// gitCanonical is a git command with the subcommand's options that took
// the next word as their value written as one word (--author=X, -n5):
// git's first pass over the words of log, show and the like reads a
// next word that looks like one of its own options as that option, not
// as the value the spec saw; attached, the value is the value. The
// options before the subcommand (-C DIR, -c NAME=VALUE) stay as typed.
// gitValidator is git's validator: checkGit, and gitCanonical for the
// form git runs in.
type gitValidator struct{}

func (gitValidator) Check(c *Call) error { return checkGit(c) }

func (gitValidator) canonical(argv []string, _ *workspace.Workspace) []string {
	return gitCanonical(argv)
}

func gitCanonical(argv []string) []string {
	if len(argv) < 3 {
		return argv
	}
	rest := GitSubcommandArgs(argv[1:])
	cmd, ok := gitCommands()[rest[0]]
	if len(rest) < 2 || !ok || cmd.spec == nil {
		return argv
	}
	head := argv[:len(argv)-len(rest)]
	return append(slices.Clone(head), cmd.spec.joinValues(rest, true)...)
}

// GitSubcommandArgs returns git's arguments from the subcommand on,
// skipping the global options before it (-C DIR, --git-dir=DIR, -P, ...),
// so that policy rules about git push also hold for git -C . push. An
// option vtexec does not know ends the skipping (the validator refuses
// it anyway).
func GitSubcommandArgs(args []string) []string {
	for i := 0; i < len(args); i++ {
		if !strings.HasPrefix(args[i], "-") || args[i] == "-" {
			return args[i:]
		}
		f, _, _, last := gitGlobalOption(args, i)
		if f == nil {
			return args[i:]
		}
		i = last
	}
	return nil
}

// global applies one global option.
func (g *gitCall) global(f *Flag, as, value string) error {
	switch f.Name() {
	case "-C":
		if value == "" {
			return nil // git -C "" stays where it is
		}
		if err := g.ws.Chdir(value); err != nil {
			return pathFinding("git -C", value, err)
		}
		g.dir = g.ws.Cwd()
	case "--git-dir", "--work-tree":
		// git keeps the value as given (the last one wins) and resolves
		// it from the directory it ends up in, after every -C.
		g.repoOpts[f.Name()] = value
	}
	return nil
}

// resolveRepoOpts checks --git-dir and --work-tree from where git runs
// and makes them absolute for the inspection.
func (g *gitCall) resolveRepoOpts() error {
	for _, name := range []string{"--git-dir", "--work-tree"} {
		value, ok := g.repoOpts[name]
		if !ok {
			continue
		}
		real, err := resolveBoth(g.ws, g.dir, value, workspace.Read)
		if err != nil {
			return pathFinding("git "+name, value, err)
		}
		// One that does not exist yet would be inspected empty, and an
		// earlier part of the list could fill in its config.
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			return refuse(string(workspace.Invalid), "name an existing repository directory inside the workspace",
				"git %s=%s: no such directory", name, value)
		}
		g.repoArgs = append(g.repoArgs, name+"="+real)
	}
	return nil
}

// gitParse parses a subcommand's arguments and splits the operands at
// "--". The "--" that ends the flags is the first one that is not a flag's
// value; a value-less flag from lastArgDefault at the end gets "HEAD".
func gitParse(cmd *gitCmd, args []string) (*gitArgs, error) {
	s := cmd.spec
	if n := len(args); n > 0 {
		for _, name := range cmd.lastArgDefault {
			if args[n-1] == name {
				args = append(args[:n:n], "HEAD")
				break
			}
		}
	}
	a, err := s.Parse(args)
	if err != nil {
		return nil, err
	}
	ga := &gitArgs{Args: a, revs: a.Operands, raw: args}
	for i, arg := range args {
		if arg != "--" {
			continue
		}
		if _, err := s.Parse(args[:i]); err != nil {
			continue // "--" is a flag's value (git commit -m --)
		}
		tail := len(args) - i - 1
		ga.revs = a.Operands[:len(a.Operands)-tail]
		ga.paths = a.Operands[len(a.Operands)-tail:]
		ga.dashdash = true
		break
	}
	return ga, nil
}

// gitOperands is the default operand check: revisions that look like
// paths, and pathspecs, must stay inside the workspace.
func gitOperands(g *gitCall, a *gitArgs) error {
	for _, op := range a.revs {
		if err := gitRevOrPath(g, op); err != nil {
			return err
		}
	}
	return gitPathspecs(g, a.paths)
}

// gitRevOrPath checks an operand before "--", which git takes as a
// revision or, failing that, as a path: one that names a file, starts
// with "/" or climbs with ".." is checked as a path to read. REV:PATH
// names a file in a commit, which git keeps inside the repository.
func gitRevOrPath(g *gitCall, op string) error {
	if op == "" || op == "-" {
		return nil
	}
	exists := false
	if _, err := os.Lstat(filepath.Join(g.dir, op)); err == nil {
		exists = true
	}
	head, _, _ := strings.Cut(op, "/")
	if !exists && strings.Contains(head, ":") {
		return nil
	}
	isPath := exists || strings.HasPrefix(op, "/")
	for _, part := range strings.Split(op, "/") {
		if part == ".." {
			isPath = true
		}
	}
	if isPath {
		return g.at().ReadPath(op, false)
	}
	return nil
}

// gitPathspecs checks pathspecs (after "--", or of subcommands that take
// only paths): each, without its magic prefix (":(top)", ":/", ":!"), must
// resolve inside the workspace; ":/" and ":(top)" count from the top of
// the working tree.
func gitPathspecs(g *gitCall, specs []string) error {
	for _, spec := range specs {
		path, top := gitPathspecPath(spec)
		base := g.dir
		if top {
			base = g.topLevel()
		}
		if path == "" {
			path = "."
		}
		if _, err := resolveBoth(g.ws, base, path, workspace.Read); err != nil {
			return pathFinding("git", spec, err)
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(base, path)
		}
		if err := g.at().ReadPath(path, false); err != nil {
			if f, ok := err.(*Finding); ok {
				f.Reason = strings.Replace(f.Reason, path, spec, 1)
			}
			return err
		}
	}
	return nil
}

// gitPathspecPath strips a pathspec's magic and reports whether it counts
// from the top of the working tree.
func gitPathspecPath(spec string) (string, bool) {
	if !strings.HasPrefix(spec, ":") {
		return spec, false
	}
	rest := spec[1:]
	if strings.HasPrefix(rest, "(") {
		magic, path, ok := strings.Cut(rest[1:], ")")
		if !ok {
			return spec, false
		}
		top := false
		for _, word := range strings.Split(magic, ",") {
			if strings.TrimSpace(word) == "top" {
				top = true
			}
		}
		return path, top
	}
	top := false
	for rest != "" && strings.ContainsRune("/!^", rune(rest[0])) {
		if rest[0] == '/' {
			top = true
		}
		rest = rest[1:]
	}
	return strings.TrimPrefix(rest, ":"), top
}

// topLevel is the top of the working tree, or the current directory when
// there is none (yet).
func (g *gitCall) topLevel() string {
	if repo, err := g.locate(); err == nil && repo != nil && repo.TopLevel != "" {
		return repo.TopLevel
	}
	return g.dir
}

// gitVerdict turns the class into a finding: nil for reads, an ask for
// the rest. note is an ask from the configuration (git-lfs).
func gitVerdict(g *gitCall, class gitClass, note *Finding) error {
	var f *Finding
	switch class {
	case gitWrite:
		f = &Finding{Ask: true, Code: CodeGitWrites, Reason: "git " + g.sub + " " + g.what,
			Hint: "a person must approve changes to the repository; read-only git commands (status, diff, log, show) run without asking"}
	case gitNetwork:
		f = &Finding{Ask: true, Code: CodeGitNetwork, Reason: "git " + g.sub + " " + g.what,
			Hint: "a person must approve git commands that reach another repository"}
	case gitConfigWrite:
		return refuse(CodeGitConfigWrite, "run it yourself, outside vtexec, if it is wanted; git commands that do not set configuration (git branch NAME, git branch -d, git checkout -b, git switch -c, git push without -u) run in the box",
			"git %s %s: it writes git's configuration (.git/config, or .git/worktrees and .git/modules), which vtexec keeps read-only for every command it runs so that nothing run in its box can change what git runs later", g.sub, g.configWhat())
	}
	switch {
	case note == nil:
	case f == nil:
		f = note
	default:
		f.Reason += "; " + note.Reason
	}
	if f == nil {
		return nil
	}
	return f
}

// gitSubList lists the known subcommands.
func gitSubList() string {
	names := make([]string, 0, len(gitCommands()))
	for name := range gitCommands() {
		names = append(names, name)
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// gitEntry describes git for the catalogue: the global options, each
// subcommand with what it does, and every refused flag.
func gitEntry() Entry {
	e := Entry{Program: "git", Operands: "global options (-C DIR and --git-dir/--work-tree confined), then one of the subcommands below; " +
		"revisions, and pathspecs confined to the workspace. Read-only subcommands run; (writes) ask with code git_writes, " +
		"(network) with git_network. Unknown subcommands and aliases are refused, and so is a repository whose " +
		"configuration names programs for git to run (diff/merge/filter drivers, credential helpers, sshCommand, ...)"}
	e.addFlags(gitGlobalFlags)
	for name, cmd := range gitCommands() {
		label := name
		switch {
		case cmd.class == gitWrite:
			label += " (writes)"
		case cmd.class == gitNetwork:
			label += " (network)"
		case cmd.class == gitConfigWrite:
			label += " (writes configuration: refused)"
		case cmd.what != "" || cmd.subs != nil:
			label += " (some forms write)"
		}
		e.Allowed = append(e.Allowed, label)
		for _, r := range cmd.spec.Entry().Refused {
			e.Refused = append(e.Refused, Refusal{Flag: name + " " + r.Flag, Reason: r.Reason})
		}
		for subName, sub := range cmd.subs {
			if sub.spec == nil {
				continue
			}
			for _, r := range sub.spec.Entry().Refused {
				e.Refused = append(e.Refused, Refusal{Flag: name + " " + subName + " " + r.Flag, Reason: r.Reason})
			}
		}
	}
	e.Refused = append(e.Refused,
		Refusal{Flag: "bisect run, bisect visualize/view, submodule foreach", Reason: "run a command vtexec does not see"},
		Refusal{Flag: "--help, help TOPIC", Reason: "open a manual page viewer the configuration chooses; use -h"})
	seen := map[string]bool{}
	refused := e.Refused[:0]
	for _, r := range e.Refused {
		if !seen[r.Flag] {
			seen[r.Flag] = true
			refused = append(refused, r)
		}
	}
	e.Refused = refused
	sort.Strings(e.Allowed)
	sort.Slice(e.Refused, func(i, j int) bool { return e.Refused[i].Flag < e.Refused[j].Flag })
	return e
}

// configWhat says what a configuration-writing form does.
func (g *gitCall) configWhat() string {
	if g.what != "" {
		return g.what
	}
	return "sets configuration"
}
