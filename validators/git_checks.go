package validators

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/vtexec/vtexec/workspace"
)

// Operand checks of the git subcommands, and the tables of those with
// subcommands of their own.

// gitPathsOnly: every operand is a pathspec.
func gitPathsOnly(g *gitCall, a *gitArgs) (gitClass, error) {
	return gitRead, gitPathspecs(g, a.Operands)
}

// gitFileOperands: every operand is a file to read ("-" is stdin).
func gitFileOperands(g *gitCall, a *gitArgs) (gitClass, error) {
	for _, op := range a.Operands {
		if err := g.at().ReadPath(op, true); err != nil {
			return 0, err
		}
	}
	return gitRead, nil
}

// gitDiffCheck: with --no-index (or outside a repository, where git diff
// compares files) every operand may be a file anywhere, so each is a path
// to read.
func gitDiffCheck(g *gitCall, a *gitArgs) (gitClass, error) {
	if a.Has("no-index") {
		return gitFileOperands(g, a)
	}
	return gitRead, gitOperands(g, a)
}

// gitGrepCheck: the pattern comes first unless -e or -f gave it.
func gitGrepCheck(g *gitCall, a *gitArgs) (gitClass, error) {
	revs := a.revs
	if len(revs) > 0 && !patternGiven(a.Args, nil) {
		revs = revs[1:]
	}
	for _, op := range revs {
		if err := gitRevOrPath(g, op); err != nil {
			return 0, err
		}
		// In the working tree git enters only checked-out submodules,
		// which the inspection covers; in a revision, any it knows.
		if _, err := os.Lstat(filepath.Join(g.dir, op)); err != nil && a.Has("recurse-submodules") {
			return 0, refuse(CodeForbiddenFlag, "grep the working tree (no revision), or run git grep inside the submodule",
				"git grep --recurse-submodules %s reads the submodules of a revision, including ones not checked out, which vtexec does not inspect", op)
		}
	}
	if a.Has("recurse-submodules") && a.Has("cached") {
		return 0, refuse(CodeForbiddenFlag, "grep the working tree (no --cached), or run git grep inside the submodule",
			"git grep --cached --recurse-submodules reads submodule repositories vtexec does not inspect")
	}
	return gitRead, gitPathspecs(g, a.paths)
}

// gitSymbolicRefCheck: NAME reads; NAME REF and --delete write.
func gitSymbolicRefCheck(g *gitCall, a *gitArgs) (gitClass, error) {
	if a.Has("delete") || len(a.Operands) > 1 {
		return gitWrite, nil
	}
	return gitRead, nil
}

// gitFormatPatchCheck: without --stdout the patches are written to -o DIR
// (checked as a flag) or to the current directory, which must be
// writable.
func gitFormatPatchCheck(g *gitCall, a *gitArgs) (gitClass, error) {
	if !a.Has("stdout") {
		dir := g.dir
		if out := a.Values("output-directory"); len(out) > 0 {
			dir = out[len(out)-1]
		} else if _, err := g.locate(); err != nil {
			return 0, err
		} else if conf, ok := g.answers.Value("format.outputDirectory"); ok {
			if d := strings.TrimSpace(conf); d != "" {
				if g.at().WritePath(d) != nil {
					return gitRead, gitOperands(g, a) // the inspection refuses the key
				}
				dir = d
			}
		}
		if err := g.at().WritePath(dir); err != nil {
			return 0, err
		}
		// git opens each patch there for writing (NNNN-subject.patch,
		// vN-NNNN-..., a cover letter, or any name --suffix and
		// --numbered-files make), through a link that has that name.
		real, _ := g.ws.Resolve(dir, workspace.Write)
		entries, _ := os.ReadDir(real)
		for _, e := range entries {
			if e.Type()&os.ModeSymlink != 0 {
				return 0, refuse(string(workspace.Outside), "remove the link, or use --stdout or another -o directory",
					"git format-patch: %s holds the symbolic link %s, and a patch written under that name would go where it points", g.ws.Rel(real), e.Name())
			}
		}
	}
	return gitRead, gitOperands(g, a)
}

// gitHasAny reports whether any of the named flags was used.
func gitHasAny(a *gitArgs, names ...string) bool {
	for _, n := range names {
		if a.Has(n) {
			return true
		}
	}
	return false
}

// gitBranchCheck: git branch lists, unless a flag or an operand without a
// listing flag asks it to create, rename, copy or delete.
func gitBranchCheck(g *gitCall, a *gitArgs) (gitClass, error) {
	// Renaming or copying moves the branch's configuration section (git
	// renames the branch, then fails on the configuration).
	if gitHasAny(a, "set-upstream-to", "unset-upstream", "edit-description", "track", "move", "M", "copy", "C") {
		g.what = "sets a branch's upstream, description or configuration section"
		return gitConfigWrite, nil
	}
	if gitHasAny(a, "delete", "D", "no-track", "force", "create-reflog", "recurse-submodules") {
		return gitWrite, nil
	}
	if len(a.Operands) > 0 && !gitHasAny(a, "list", "contains", "no-contains", "merged", "no-merged", "points-at", "verbose") {
		return gitWrite, nil
	}
	return gitRead, nil
}

// gitTagCheck: git tag lists or verifies, unless a flag or an operand
// without a listing flag asks it to create or delete.
func gitTagCheck(g *gitCall, a *gitArgs) (gitClass, error) {
	if gitHasAny(a, "annotate", "sign", "local-user", "message", "file", "edit", "delete", "force",
		"create-reflog", "cleanup") {
		return gitWrite, nil
	}
	if len(a.Operands) > 0 && !gitHasAny(a, "list", "n", "contains", "no-contains", "merged", "no-merged", "points-at", "verify") {
		return gitWrite, nil
	}
	return gitRead, nil
}

// gitStrategies are git's own merge strategies; any other name makes git
// run a git-merge-NAME program.
var gitStrategies = &lazy[map[string]bool]{make: func() map[string]bool {
	return map[string]bool{"ort": true, "recursive": true, "resolve": true, "octopus": true, "ours": true, "subtree": true}
}}

// gitStrategyCheck: -s/--strategy must name a built-in strategy.
func gitStrategyCheck(g *gitCall, a *gitArgs) (gitClass, error) {
	for _, s := range a.Values("strategy") {
		if !gitStrategies.get()[s] {
			return 0, refuse(CodeForbiddenFlag, "use one of git's strategies: ort recursive resolve octopus ours subtree",
				"git %s --strategy %s would run a program git-merge-%s", g.sub, s, s)
		}
	}
	return gitRead, gitOperands(g, a)
}

// gitInitCheck: the directory is created (or reinitialised) in the
// workspace.
func gitInitCheck(g *gitCall, a *gitArgs) (gitClass, error) {
	for _, op := range a.Operands {
		if err := g.at().WritePath(op); err != nil {
			return 0, err
		}
	}
	return gitWrite, nil
}

// gitApplyCheck: the patches are files to read; --stat, --numstat,
// --summary and --check only read unless --apply is given too.
func gitApplyCheck(g *gitCall, a *gitArgs) (gitClass, error) {
	if _, err := gitFileOperands(g, a); err != nil {
		return 0, err
	}
	if gitHasAny(a, "stat", "numstat", "summary", "check") && !a.Has("apply") {
		return gitRead, nil
	}
	return gitWrite, nil
}

// gitRepository checks a repository operand: a remote name or URL, which
// git reaches over the network, or a local path, which must be in the
// workspace. ext:: and fd:: remotes are refused: they run a command or
// speak over inherited file descriptors.
func gitRepository(g *gitCall, repo string) error {
	if helper, _, ok := strings.Cut(repo, "::"); ok && !strings.Contains(helper, "/") {
		if h := strings.ToLower(helper); h == "ext" || h == "fd" {
			return refuse(CodeForbiddenFlag, "use an https:// or ssh:// URL or a remote name",
				"git: %s:: remotes run a command of their own", h)
		}
		return nil
	}
	if scheme, rest, ok := strings.Cut(repo, "://"); ok && !strings.Contains(scheme, "/") {
		if strings.EqualFold(scheme, "file") {
			return g.at().ReadPath(rest, false)
		}
		return nil
	}
	if colon := strings.IndexByte(repo, ':'); colon > 0 && !strings.Contains(repo[:colon], "/") {
		return nil // host:path, ssh
	}
	if !strings.Contains(repo, "/") && !strings.HasPrefix(repo, ".") {
		if err := gitRevOrPath(g, repo); err != nil {
			return err
		}
		return nil // a remote name (or a path gitRevOrPath checked)
	}
	return g.at().ReadPath(repo, false)
}

// gitRemoteOperands: the first operand is the repository (all of them
// with --multiple); the rest are refspecs.
func gitRemoteOperands(g *gitCall, a *gitArgs) (gitClass, error) {
	ops := a.Operands
	if !a.Has("multiple") && len(ops) > 1 {
		ops = ops[:1]
	}
	if a.Has("all") {
		ops = nil
	}
	for _, op := range ops {
		if err := gitRepository(g, op); err != nil {
			return 0, err
		}
	}
	return gitRead, nil
}

// gitPullCheck: a built-in strategy, and the repository.
func gitPullCheck(g *gitCall, a *gitArgs) (gitClass, error) {
	if a.Has("set-upstream") {
		g.what = "sets the branch's upstream"
		return gitConfigWrite, nil
	}
	for _, s := range a.Values("strategy") {
		if !gitStrategies.get()[s] {
			return gitStrategyCheck(g, a)
		}
	}
	return gitRemoteOperands(g, a)
}

// gitPushCheck: the repository is the first operand or --repo.
func gitPushCheck(g *gitCall, a *gitArgs) (gitClass, error) {
	if a.Has("set-upstream") {
		g.what = "sets the branch's upstream"
		return gitConfigWrite, nil
	}
	for _, r := range a.Values("repo") {
		if err := gitRepository(g, r); err != nil {
			return 0, err
		}
	}
	return gitRemoteOperands(g, a)
}

// gitCloneCheck: the repository, then the directory to create (by
// default in the current directory).
func gitCloneCheck(g *gitCall, a *gitArgs) (gitClass, error) {
	ops := a.Operands
	if len(ops) == 0 {
		return 0, refuse(CodeBadUsage, "git clone REPOSITORY [DIRECTORY]", "git clone: no repository given")
	}
	if err := gitRepository(g, ops[0]); err != nil {
		return 0, err
	}
	dir := g.dir
	if len(ops) > 1 {
		dir = ops[1]
	}
	return gitRead, g.at().WritePath(dir)
}

// gitHelpCheck: git help only lists; a topic opens a manual page viewer
// that the configuration chooses.
func gitHelpCheck(g *gitCall, a *gitArgs) (gitClass, error) {
	if len(a.Operands) > 0 {
		return 0, refuse(CodeForbiddenFlag, "use git "+a.Operands[0]+" -h for a usage summary",
			"git help %s opens a manual page viewer", a.Operands[0])
	}
	return gitRead, nil
}

// gitConfigCheck: reads run; a wide listing must be of the repository's
// own file (the user's global file is outside the workspace); writes to
// the repository's configuration ask, unless they set a key that makes
// git run a program or read elsewhere, which is refused; writes to the
// global or system file are refused.
func gitConfigCheck(g *gitCall, a *gitArgs) (gitClass, error) {
	ops := a.Operands
	write := gitHasAny(a, "replace-all", "add", "unset", "unset-all", "rename-section", "remove-section")
	if !write && !gitHasAny(a, "get", "get-all", "get-regexp", "get-urlmatch", "list", "get-color", "get-colorbool") {
		write = len(ops) >= 2
	}
	files := a.Values("file")
	if a.Has("blob") && !a.Has("no-includes") {
		return 0, refuse(CodeForbiddenFlag, "add --no-includes",
			"git config --blob follows include.path in the blob, which can name any file (~/.my.cnf) and print it as configuration")
	}
	if a.Has("includes") && (len(files) > 0 || a.Has("blob")) {
		return 0, refuse(CodeForbiddenFlag, "drop --includes; vtexec inspects the repository's own includes itself",
			"git config --includes follows include.path in the file, which can name any file (~/.my.cnf) and print it as configuration")
	}
	for _, f := range files {
		var err error
		if write {
			err = g.at().WritePath(f)
		} else {
			err = g.at().ReadPath(f, true)
		}
		if err != nil {
			return 0, err
		}
	}
	global := a.Has("global") || a.Has("system")
	if !write {
		scoped := a.Has("local") || a.Has("worktree") || len(files) > 0 || a.Has("blob")
		if gitHasAny(a, "list", "get-regexp", "get-urlmatch") && !scoped {
			return 0, &Finding{Code: string(workspace.Outside),
				Reason: "git config: listing includes the user's global configuration, which is outside the workspace",
				Hint:   "add --local to list the repository's own configuration, or ask for one key (git config --get NAME)"}
		}
		return gitRead, nil
	}
	if global {
		return 0, &Finding{Code: string(workspace.Outside),
			Reason: "git config --global/--system writes the user's or the system's configuration, outside the workspace",
			Hint:   "ask the user to set it"}
	}
	if len(files) > 0 {
		return gitWrite, nil // a file of the workspace's
	}
	g.what = "sets the repository's configuration"
	if len(ops) == 0 {
		return gitConfigWrite, nil
	}
	if a.Has("rename-section") {
		for _, name := range ops {
			section, _, _ := strings.Cut(strings.ToLower(name), ".")
			if gitRiskySections.get()[section] {
				return 0, refuse(CodeGitConfig, "rename sections other than "+section+" outside vtexec",
					"git config --rename-section into or out of the %s section can create keys that run programs", section)
			}
		}
		return gitConfigWrite, nil
	}
	if gitHasAny(a, "unset", "unset-all", "remove-section") {
		return gitConfigWrite, nil
	}
	key, value := ops[0], ""
	if len(ops) > 1 {
		value = ops[1]
	}
	lower := strings.ToLower(key)
	what, _ := gitConfigRisk(key, value)
	switch {
	case what != "":
	case lower == "include.path" || strings.HasPrefix(lower, "includeif."):
		what = "includes another file into the configuration"
	case lower == "core.worktree":
		what = "moves the working tree git reads and writes"
	case strings.HasPrefix(lower, "protocol.") || strings.HasPrefix(lower, "safe."):
		what = "weakens git's own protections"
	}
	if what != "" {
		return 0, refuse(CodeGitConfig, "a person can set it outside vtexec",
			"git config %s: the key %s", key, what)
	}
	return gitConfigWrite, nil
}

// gitRiskySections hold keys that run programs or weaken protections.
var gitRiskySections = &lazy[map[string]bool]{make: func() map[string]bool {
	return map[string]bool{
		"diff": true, "filter": true, "merge": true, "credential": true, "gpg": true, "remote": true,
		"submodule": true, "include": true, "includeif": true, "core": true, "trailer": true,
		"interactive": true, "http": true, "protocol": true, "safe": true, "commit": true,
	}
}}

// gitStashCmds are the subcommands of git stash; push is the default.
func gitStashCmds() map[string]*gitCmd {
	push := []Flag{
		{Short: "p", Long: "patch", Forbid: gitInteractive}, {Short: "S", Long: "staged"},
		{Short: "k", Long: "keep-index"}, {Short: "q", Long: "quiet"},
		{Short: "u", Long: "include-untracked"}, {Short: "a", Long: "all"},
		{Short: "m", Long: "message", Arg: Text},
	}
	quiet := []Flag{{Short: "q", Long: "quiet"}}
	return map[string]*gitCmd{
		"push": {class: gitWrite, what: "saves local changes away and resets them", check: gitPathsOnly,
			spec: gitSpec("", "pathspecs, confined", false, push, gitPathFile)},
		"save": {class: gitWrite, what: "saves local changes away and resets them", check: gitTexts,
			spec: gitSpec("", "a message", false, push)},
		"list": {spec: gitSpec("", gitOps, true, gitRevFlags, gitDiffFlags)},
		"show": {spec: gitSpec("", "a stash entry", true, []Flag{
			{Short: "u", Long: "include-untracked"}, {Long: "only-untracked"},
		}, gitDiffFlags, gitRevFlagsNotLog())},
		"drop":   {class: gitWrite, what: "deletes a stash entry", spec: gitSpec("", "a stash entry", false, quiet)},
		"pop":    {class: gitWrite, what: "applies a stash entry and deletes it", spec: gitSpec("", "a stash entry", false, quiet, []Flag{{Long: "index"}})},
		"apply":  {class: gitWrite, what: "applies a stash entry", spec: gitSpec("", "a stash entry", false, quiet, []Flag{{Long: "index"}})},
		"branch": {class: gitWrite, what: "creates a branch from a stash entry", check: gitTexts, spec: gitSpec("", "BRANCH [STASH]", false)},
		"clear":  {class: gitWrite, what: "deletes every stash entry", spec: gitSpec("", "none", false)},
		"create": {class: gitWrite, what: "creates a stash commit", check: gitTexts, spec: gitSpec("", "a message", false)},
		"store": {class: gitWrite, what: "stores a commit as a stash entry", check: gitTexts,
			spec: gitSpec("", "a commit", false, quiet, []Flag{{Short: "m", Long: "message", Arg: Text}})},
	}
}

// gitTexts: operands are names or messages, never opened.
func gitTexts(*gitCall, *gitArgs) (gitClass, error) { return gitRead, nil }

// gitReflogCmds are the subcommands of git reflog; show is the default.
func gitReflogCmds() map[string]*gitCmd {
	return map[string]*gitCmd{
		"show":   {spec: gitSpec("", gitOps, true, gitRevFlags, gitDiffFlags)},
		"exists": {check: gitTexts, spec: gitSpec("", "a ref", false)},
		"expire": {class: gitWrite, what: "prunes reflog entries", check: gitTexts, spec: gitSpec("", "refs", false, []Flag{
			{Long: "expire", Arg: Text}, {Long: "expire-unreachable", Arg: Text},
			{Long: "rewrite"}, {Long: "updateref"}, {Long: "stale-fix"}, {Short: "n", Long: "dry-run"},
			{Long: "verbose"}, {Long: "all"}, {Long: "single-worktree"},
		})},
		"delete": {class: gitWrite, what: "deletes reflog entries", check: gitTexts, spec: gitSpec("", "reflog entries", false, []Flag{
			{Long: "rewrite"}, {Long: "updateref"}, {Short: "n", Long: "dry-run"}, {Long: "verbose"},
		})},
	}
}

// gitRemoteCmds are the subcommands of git remote; list is the default.
func gitRemoteCmds() map[string]*gitCmd {
	urls := func(from int) func(g *gitCall, a *gitArgs) (gitClass, error) {
		return func(g *gitCall, a *gitArgs) (gitClass, error) {
			for i, op := range a.Operands {
				if i >= from {
					if err := gitRepository(g, op); err != nil {
						return 0, err
					}
				}
			}
			return gitRead, nil
		}
	}
	return map[string]*gitCmd{
		"list":    {check: gitTexts, spec: gitSpec("", "none", false, []Flag{{Short: "v", Long: "verbose"}})},
		"get-url": {check: gitTexts, spec: gitSpec("", "a remote", false, []Flag{{Long: "push"}, {Long: "all"}})},
		"show": {what: "contacts the remote to show its branches (-n does not)",
			check: func(g *gitCall, a *gitArgs) (gitClass, error) {
				if a.Has("n") {
					return gitRead, nil
				}
				return gitNetwork, nil
			}, spec: gitSpec("", "remotes", false, []Flag{{Short: "n"}})},
		"add": {class: gitConfigWrite, what: "adds a remote to the configuration (with -f, fetches it)",
			check: func(g *gitCall, a *gitArgs) (gitClass, error) {
				if _, err := urls(1)(g, a); err != nil {
					return 0, err
				}
				return gitConfigWrite, nil
			}, spec: gitSpec("", "NAME URL", false, []Flag{
				{Short: "t", Arg: Text}, {Short: "m", Arg: Text}, {Short: "f", Long: "fetch"}, {Long: "tags"},
				{Long: "mirror", Arg: Text, Optional: true},
			})},
		"rename": {class: gitConfigWrite, what: "renames a remote", check: gitTexts,
			spec: gitSpec("", "OLD NEW", false, []Flag{{Long: "progress"}})},
		"remove": {class: gitConfigWrite, what: "removes a remote and its branches", check: gitTexts, spec: gitSpec("", "a remote", false)},
		"rm":     {class: gitConfigWrite, what: "removes a remote and its branches", check: gitTexts, spec: gitSpec("", "a remote", false)},
		"set-head": {class: gitWrite, what: "sets the remote's default branch (with -a, asks the remote)",
			check: func(g *gitCall, a *gitArgs) (gitClass, error) {
				if a.Has("auto") {
					return gitNetwork, nil
				}
				return gitWrite, nil
			}, spec: gitSpec("", "NAME [BRANCH]", false, []Flag{{Short: "a", Long: "auto"}, {Short: "d", Long: "delete"}})},
		"set-branches": {class: gitConfigWrite, what: "changes the branches a remote tracks", check: gitTexts,
			spec: gitSpec("", "NAME BRANCH...", false, []Flag{{Long: "add"}})},
		"set-url": {class: gitConfigWrite, what: "changes a remote's URL", check: urls(1),
			spec: gitSpec("", "NAME NEWURL [OLDURL]", false, []Flag{{Long: "push"}, {Long: "add"}, {Long: "delete"}})},
		"prune": {class: gitNetwork, what: "deletes remote-tracking branches gone from the remote", check: gitTexts,
			spec: gitSpec("", "remotes", false, []Flag{{Short: "n", Long: "dry-run"}})},
		"update": {class: gitNetwork, what: "fetches from remotes", check: gitTexts,
			spec: gitSpec("", "remotes or groups", false, []Flag{{Short: "p", Long: "prune"}})},
	}
}

// gitWorktreeCmds are the subcommands of git worktree.
func gitWorktreeCmds() map[string]*gitCmd {
	// paths checks the first operand (an existing worktree, or the new
	// one with write) and, for move, the second (the new place).
	paths := func(write bool, dest bool) func(g *gitCall, a *gitArgs) (gitClass, error) {
		return func(g *gitCall, a *gitArgs) (gitClass, error) {
			ops := a.Operands
			if len(ops) == 0 {
				return gitRead, nil
			}
			var err error
			if write {
				err = g.at().WritePath(ops[0])
			} else {
				err = g.at().ReadPath(ops[0], false)
			}
			if err == nil && dest && len(ops) > 1 {
				err = g.at().WritePath(ops[1])
			}
			return gitRead, err
		}
	}
	return map[string]*gitCmd{
		"list": {check: gitTexts, spec: gitSpec("", "none", false, []Flag{
			{Short: "v", Long: "verbose"}, {Long: "porcelain"}, {Short: "z"},
		})},
		"add": {class: gitConfigWrite, what: "creates a working tree", check: paths(true, false),
			spec: gitSpec("", "PATH (created, confined) [COMMIT]", false, []Flag{
				{Short: "f", Long: "force"}, {Long: "detach"}, {Long: "checkout"}, {Long: "lock"},
				{Long: "reason", Arg: Text}, {Short: "b", Arg: Text}, {Short: "B", Arg: Text},
				{Long: "track"}, {Long: "guess-remote"}, {Short: "q", Long: "quiet"},
			})},
		"move":   {class: gitConfigWrite, what: "moves a working tree", check: paths(false, true), spec: gitSpec("", "WORKTREE NEWPATH, confined", false, []Flag{{Short: "f", Long: "force"}})},
		"remove": {class: gitConfigWrite, what: "deletes a working tree", check: paths(false, false), spec: gitSpec("", "a worktree, confined", false, []Flag{{Short: "f", Long: "force"}})},
		"prune": {class: gitConfigWrite, what: "prunes stale working tree records", check: gitTexts, spec: gitSpec("", "none", false, []Flag{
			{Short: "n", Long: "dry-run"}, {Short: "v", Long: "verbose"}, {Long: "expire", Arg: Text},
		})},
		"lock":   {class: gitConfigWrite, what: "locks a working tree", check: paths(false, false), spec: gitSpec("", "a worktree, confined", false, []Flag{{Long: "reason", Arg: Text}})},
		"unlock": {class: gitConfigWrite, what: "unlocks a working tree", check: paths(false, false), spec: gitSpec("", "a worktree, confined", false)},
		"repair": {class: gitConfigWrite, what: "repairs working tree records", check: gitPathsOnly, spec: gitSpec("", "worktrees, confined", false)},
	}
}

// gitBisectCmds are the subcommands of git bisect.
func gitBisectCmds() map[string]*gitCmd {
	step := func(what string) *gitCmd {
		return &gitCmd{class: gitWrite, what: what, spec: gitSpec("", "revisions", false)}
	}
	refused := func(name, reason, hint string) *gitCmd {
		return &gitCmd{spec: &Spec{NoPermute: true}, check: func(g *gitCall, a *gitArgs) (gitClass, error) {
			return 0, refuse(CodeForbiddenFlag, hint, "git bisect %s %s", name, reason)
		}}
	}
	return map[string]*gitCmd{
		"start": {class: gitWrite, what: "starts a bisection and checks out commits", spec: gitSpec("", gitOps, false, []Flag{
			{Long: "term-new", Arg: Text}, {Long: "term-bad", Arg: Text}, {Long: "term-old", Arg: Text},
			{Long: "term-good", Arg: Text}, {Long: "no-checkout"}, {Long: "first-parent"},
		})},
		"bad":   step("marks a commit and checks out the next"),
		"new":   step("marks a commit and checks out the next"),
		"good":  step("marks commits and checks out the next"),
		"old":   step("marks commits and checks out the next"),
		"skip":  step("skips commits and checks out the next"),
		"next":  step("checks out the next commit to test"),
		"reset": step("ends the bisection and checks out a commit"),
		"replay": {class: gitWrite, what: "replays a bisection log", check: gitFileOperands,
			spec: gitSpec("", "a log file, confined", false)},
		"terms": {check: gitTexts, spec: gitSpec("", "none", false, []Flag{{Long: "term-good"}, {Long: "term-bad"}})},
		"log":   {check: gitTexts, spec: gitSpec("", "none", false)},
		"help":  {check: gitTexts, spec: gitSpec("", "none", false)},
		"run": refused("run", "runs a command at every step",
			"run the test yourself at each step and mark the commit with git bisect good or bad"),
		"visualize": refused("visualize", "starts gitk or git log with options vtexec does not see", "use git bisect log, or git log"),
		"view":      refused("view", "starts gitk or git log with options vtexec does not see", "use git bisect log, or git log"),
	}
}

// gitSubmoduleCmds are the subcommands of git submodule; status is the
// default.
func gitSubmoduleCmds() map[string]*gitCmd {
	quiet := []Flag{{Short: "q", Long: "quiet"}}
	return map[string]*gitCmd{
		"status": {check: gitPathsOnly, spec: gitSpec("", "pathspecs, confined", false, quiet, []Flag{
			{Long: "cached"}, {Long: "recursive"},
		})},
		"summary": {spec: &Spec{NoPermute: true}, check: func(g *gitCall, a *gitArgs) (gitClass, error) {
			return 0, refuse(CodeForbiddenFlag, "run git log inside the checked-out submodule instead",
				"git submodule summary runs git log in each submodule's repository, including ones not checked out, which vtexec does not inspect")
		}},
		"foreach": {spec: &Spec{NoPermute: true}, check: func(g *gitCall, a *gitArgs) (gitClass, error) {
			return 0, refuse(CodeForbiddenFlag, "run the command in each submodule directory yourself",
				"git submodule foreach runs a shell command in every submodule")
		}},
		"init": {class: gitConfigWrite, what: "registers submodules in the configuration", check: gitPathsOnly,
			spec: gitSpec("", "pathspecs, confined", false, quiet)},
		"deinit": {class: gitConfigWrite, what: "unregisters submodules and empties their working trees", check: gitPathsOnly,
			spec: gitSpec("", "pathspecs, confined", false, quiet, []Flag{{Short: "f", Long: "force"}, {Long: "all"}})},
		"update": {class: gitConfigWrite, what: "clones or fetches submodules and checks them out", check: gitPathsOnly,
			spec: gitSpec("", "pathspecs, confined", false, quiet, []Flag{
				{Long: "init"}, {Long: "remote"}, {Short: "N", Long: "no-fetch"}, {Long: "checkout"},
				{Long: "rebase"}, {Long: "merge"}, {Long: "recursive"}, {Long: "depth", Arg: Number},
				{Long: "recommend-shallow"}, {Long: "reference", Arg: ReadPath}, {Long: "dissociate"},
				{Long: "single-branch"}, {Short: "j", Long: "jobs", Arg: Number}, {Long: "filter", Arg: Text},
				{Short: "f", Long: "force"}, {Long: "progress"},
			})},
		"add": {class: gitConfigWrite, what: "clones a repository as a submodule",
			check: func(g *gitCall, a *gitArgs) (gitClass, error) {
				ops := a.Operands
				if len(ops) > 0 && !strings.HasPrefix(ops[0], "./") && !strings.HasPrefix(ops[0], "../") {
					// ./ and ../ are relative to the superproject's URL.
					if err := gitRepository(g, ops[0]); err != nil {
						return 0, err
					}
				}
				if len(ops) > 1 {
					return gitRead, g.at().WritePath(ops[1])
				}
				return gitRead, nil
			}, spec: gitSpec("", "REPOSITORY [PATH], confined", false, quiet, []Flag{
				{Short: "b", Long: "branch", Arg: Text}, {Short: "f", Long: "force"}, {Long: "name", Arg: Text},
				{Long: "reference", Arg: ReadPath}, {Long: "dissociate"}, {Long: "depth", Arg: Number},
				{Long: "progress"},
			})},
		"set-branch": {class: gitWrite, what: "changes a submodule's branch in .gitmodules", check: gitTexts,
			spec: gitSpec("", "a submodule path", false, quiet, []Flag{{Short: "b", Long: "branch", Arg: Text}, {Short: "d", Long: "default"}})},
		"set-url": {class: gitWrite, what: "changes a submodule's URL in .gitmodules", check: gitTexts,
			spec: gitSpec("", "PATH NEWURL", false, quiet)},
		"sync": {class: gitConfigWrite, what: "copies submodule URLs into the configuration", check: gitPathsOnly,
			spec: gitSpec("", "pathspecs, confined", false, quiet, []Flag{{Long: "recursive"}})},
		"absorbgitdirs": {class: gitConfigWrite, what: "moves submodule git directories into the superproject", check: gitPathsOnly,
			spec: gitSpec("", "pathspecs, confined", false, quiet)},
	}
}

// gitNewBranchOnly classes checkout and switch: making a new branch where
// HEAD is (checkout -b NAME, switch -c NAME, and nothing else: no start
// point, no paths, no force) changes no file and runs without asking;
// every other form writes. Operands are checked as revisions or paths.
func gitNewBranchOnly(g *gitCall, a *gitArgs) (gitClass, error) {
	if a.Has("track") {
		g.what = "sets the new branch's upstream"
		return gitConfigWrite, nil
	}
	if err := gitOperands(g, a); err != nil {
		return gitWrite, err
	}
	if len(a.Operands) > 0 || len(a.Flags) != 1 {
		return gitWrite, nil
	}
	switch f := a.Flags[0].Flag; {
	case g.sub == "checkout" && f.Short == "b", g.sub == "switch" && f.Long == "create":
		return gitRead, nil
	}
	return gitWrite, nil
}

// gitFetchCheck: --set-upstream writes the configuration; the rest as
// any command that reaches a remote.
func gitFetchCheck(g *gitCall, a *gitArgs) (gitClass, error) {
	if a.Has("set-upstream") {
		g.what = "sets the branch's upstream"
		return gitConfigWrite, nil
	}
	return gitRemoteOperands(g, a)
}
