package validators

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/vtexec/vtexec/gitrepo"
	"github.com/vtexec/vtexec/internal/fsutil"

	"github.com/vtexec/vtexec/internal/dirwatch"
	"github.com/vtexec/vtexec/workspace"
)

// Inspecting the repository before git runs in it. vtexec asks git itself
// (rev-parse, config --list, ls-files), with the environment the command
// will have, so that what it reads is what the command will read:
// includes, conditional includes, worktrees, core.worktree and submodules
// resolved by git's own rules. None of these runs a program from the
// configuration (tests/security/git_test.go checks it).
//
// A repository is refused when
//   - its working tree (or, bare, its git directory) is outside the
//     workspace: git would read and write there;
//   - its git directory is not write-protected (not below a .git
//     directory): a command vtexec allows could rewrite its configuration
//     between the check and the run;
//   - its configuration (local or worktree scope, or a submodule's)
//     defines a key that makes git run a program and that the runner's
//     environment cannot override, or includes another file;
//   - the user's configuration, or a file it includes, lies in the
//     workspace where commands vtexec allows could rewrite it.
// The user's own configuration (~/.gitconfig) is trusted otherwise.

const (
	// gitMaxSubmodules bounds the submodules inspected, nested ones
	// included; a repository with more is refused.
	gitMaxSubmodules = 64
	gitMaxDepth      = 4
)

// gitHint is the safe alternative when a repository's configuration is
// refused.
const gitConfigHint = "a person can remove the keys (git config --unset KEY) or run this git command outside vtexec"

// inspect checks the repository the command will use and its
// configuration. It returns an ask for git-lfs, or a refusal.
func (g *gitCall) inspect(class gitClass) (*Finding, error) {
	if home := os.Getenv("HOME"); home != "" {
		for _, p := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config")} {
			if gitWritable(g.ws, p) {
				return nil, refuse(CodeGitConfig, "keep your git configuration outside the workspace, or run git outside vtexec",
					"git: your git configuration %s lies in the workspace, where commands vtexec allows could rewrite it", p)
			}
		}
	}
	insp := &gitInspection{ws: g.ws, git: g.inspector(), network: class == gitNetwork}
	repo, err := g.locate()
	if err != nil {
		return nil, err
	}
	if _, named := g.repoOpts["--git-dir"]; named && repo == nil {
		return nil, refuse(CodeGitConfig, "name an existing repository with --git-dir",
			"git --git-dir=%s: not a git repository", g.repoOpts["--git-dir"])
	}
	if err := insp.repository(g.dir, g.repoArgs, repo, g.answers, 0); err != nil {
		return nil, err
	}
	return insp.lfs, nil
}

// locate finds the repository (once); nil when there is none.
func (g *gitCall) locate() (*gitrepo.Repo, error) {
	if g.located {
		return g.repo, nil
	}
	g.answers = g.inspector().Ask(g.dir, g.repoArgs)
	repo, err := gitRepoOf(g.dir, g.answers)
	if err != nil {
		return nil, err
	}
	g.repo, g.located = repo, true
	return repo, nil
}

// gitRepoOf reads where answers say the repository is: nil, nil when dir
// is in no repository.
func gitRepoOf(dir string, a *gitrepo.Answers) (*gitrepo.Repo, error) {
	repo, err := a.Repo(dir)
	var u *gitrepo.Uninspectable
	if errors.As(err, &u) {
		return nil, refuse(CodeGitConfig, "run git in a repository inside the workspace; a bare repository must be named with --git-dir",
			"git: %s", u.Error())
	}
	return repo, err
}

// gitInspection is the state of one inspection: a repository and its
// submodules.
type gitInspection struct {
	ws  *workspace.Workspace
	git gitrepo.Inspector
	// network: the command reaches another repository, so keys that only
	// matter then count too.
	network bool
	// lazy: the repository is a partial clone, which fetches missing
	// objects from its promisor remote on any read, so keys that matter
	// on the network matter on every command.
	lazy  bool
	count int
	lfs   *Finding
	// top is the working tree of the repository being inspected, or "".
	top string
	// writable remembers gitWritable for the files of the configuration.
	writable map[string]bool
}

// writableFile is gitWritable, once per file and inspection.
func (in *gitInspection) writableFile(p string) bool {
	w, ok := in.writable[p]
	if !ok {
		if in.writable == nil {
			in.writable = map[string]bool{}
		}
		w = gitWritable(in.ws, p)
		in.writable[p] = w
	}
	return w
}

// repository checks one repository (repo nil: none) and then its
// populated submodules; a holds git's answers in dir.
func (in *gitInspection) repository(dir string, repoArgs []string, repo *gitrepo.Repo, a *gitrepo.Answers, depth int) error {
	in.top = ""
	if repo != nil {
		if err := in.placement(repo); err != nil {
			return err
		}
		if err := in.gitDirContents(repo); err != nil {
			return err
		}
		in.top = repo.TopLevel
	}
	if err := in.configuration(dir, a); err != nil {
		return err
	}
	if repo == nil || repo.TopLevel == "" {
		return nil
	}
	return in.submodules(repo, a, depth)
}

// placement checks where the repository lies.
func (in *gitInspection) placement(repo *gitrepo.Repo) error {
	where := repo.TopLevel
	if where == "" {
		where = repo.GitDir
	}
	if _, err := in.ws.Resolve(where, workspace.Read); err != nil {
		return &Finding{Code: string(workspace.Outside),
			Reason: "git: the repository's working tree " + where + " is outside the workspace; git would read and write there",
			Hint:   "run git in a repository inside the workspace, or have the repository's root granted as an extra root"}
	}
	for i, dir := range []string{repo.GitDir, repo.CommonDir} {
		if i == 1 && dir == repo.GitDir {
			break // one and the same
		}
		if _, err := in.ws.Resolve(dir, workspace.Read); err != nil && !gitLinkedWorktree(repo) {
			return &Finding{Code: string(workspace.Outside),
				Reason: "git: the repository's git directory " + dir + " is outside the workspace (a .git file points there); git would read its history",
				Hint:   "run git in a repository whose .git is inside the workspace; a linked worktree (git worktree add) is fine"}
		}
		if gitWritable(in.ws, dir) {
			return refuse(CodeGitConfig, "keep the repository in a directory named .git, or run git outside vtexec",
				"git: the git directory %s is not write-protected (it is not inside a .git directory), so a command could rewrite its configuration before git runs", in.ws.Rel(dir))
		}
	}
	return nil
}

// gitLinkedWorktree reports whether repo is a linked worktree (git
// worktree add) of a repository elsewhere: its git directory is
// COMMON/worktrees/NAME and names this working tree's .git in return.
func gitLinkedWorktree(repo *gitrepo.Repo) bool {
	if repo.TopLevel == "" || filepath.Dir(repo.GitDir) != filepath.Join(repo.CommonDir, "worktrees") {
		return false
	}
	back, _, err := fsutil.ReadRegular(filepath.Join(repo.GitDir, "gitdir"), gitSmallFile, false)
	if err != nil {
		return false
	}
	want, err1 := filepath.EvalSymlinks(filepath.Join(repo.TopLevel, ".git"))
	got, err2 := filepath.EvalSymlinks(strings.TrimSpace(string(back)))
	return err1 == nil && err2 == nil && want == got
}

// configuration lists the configuration git will read in dir and
// checks every entry; it refuses naming every key that makes git run a
// program.
func (in *gitInspection) configuration(dir string, a *gitrepo.Answers) error {
	if a.Config.Err != nil {
		return refuse(CodeGitConfig, "fix the configuration, or run git outside vtexec",
			"git: cannot read the configuration in %s: %s", dir, gitrepo.FirstLine(strings.TrimSpace(a.Config.Stderr)))
	}
	var problems []string
	entries := a.Entries()
	in.lazy = false
	for _, e := range entries {
		lower := strings.ToLower(e.Key)
		if lower == "extensions.partialclone" || strings.HasPrefix(lower, "remote.") && strings.HasSuffix(lower, ".promisor") && !gitFalse(e.Value) {
			in.lazy = true
		}
	}
	for _, e := range entries {
		problem, err := in.entry(dir, e)
		if err != nil {
			return err
		}
		if problem != "" {
			problems = append(problems, problem)
		}
	}
	if len(problems) == 0 {
		return nil
	}
	if len(problems) > 6 {
		problems = append(problems[:5], fmt.Sprintf("and %d more", len(problems)-5))
	}
	return refuse(CodeGitConfig, gitConfigHint,
		"git: the repository's configuration makes git run programs vtexec cannot check: %s", strings.Join(problems, "; "))
}

// entry checks one configuration entry. It returns what is wrong with a
// key of the repository's configuration, or a refusal of its own.
func (in *gitInspection) entry(dir string, e gitrepo.Entry) (string, error) {
	key, value := e.Key, e.Value
	file := e.File(dir)
	trusted := e.Scope != "local" && e.Scope != "worktree" && !in.writableFile(file)
	shown := file
	if shown == "" {
		shown = e.Origin
	} else if in.ws.Contains(file) {
		shown = in.ws.Rel(file)
	}
	lower := strings.ToLower(key)
	if e.Includes() {
		if !trusted {
			return fmt.Sprintf("%s = %s in %s includes another file, which vtexec does not follow", key, value, shown), nil
		}
		if target := gitrepo.IncludeTarget(file, value); target != "" && gitWritable(in.ws, target) {
			return "", refuse(CodeGitConfig, "include a file outside the workspace, or run git outside vtexec",
				"git: %s in %s includes %s, which lies in the workspace where commands vtexec allows could rewrite it", key, shown, target)
		}
		return "", nil
	}
	if trusted {
		return "", nil
	}
	if problem := in.pathKey(dir, lower, key, value, shown); problem != "" {
		return problem, nil
	}
	what, risk := gitConfigRisk(key, value)
	switch {
	case risk == gitRiskNone, risk == gitRiskNetwork && !in.network && !in.lazy:
		return "", nil
	case risk == gitRiskLFS:
		if in.lfs == nil {
			in.lfs = &Finding{Ask: true, Code: CodeGitLFS,
				Reason: "the repository's configuration (" + shown + ") runs git-lfs (" + key + ") on the files .gitattributes assigns to it",
				Hint:   "a person must approve running git-lfs; configure it globally (git lfs install) to trust it everywhere"}
		}
		return "", nil
	}
	return fmt.Sprintf("%s = %s in %s %s", key, value, shown, what), nil
}

// submodules inspects every populated submodule (a gitlink in the index
// whose directory has a .git): git status and diff run git there.
func (in *gitInspection) submodules(repo *gitrepo.Repo, a *gitrepo.Answers, depth int) error {
	if !a.HasIndex {
		return refuse(CodeGitConfig, "run git outside vtexec", "git: cannot list the submodules of %s: no index listing", repo.TopLevel)
	}
	if err := a.Index.Err; err != nil {
		return refuse(CodeGitConfig, "run git outside vtexec", "git: cannot list the submodules of %s: %v", repo.TopLevel, err)
	}
	if err := in.leadingDirs(repo.TopLevel, a.Index.Dirs); err != nil {
		return err
	}
	for _, p := range a.Index.Gitlinks {
		sub := filepath.Join(repo.TopLevel, p)
		if _, err := os.Lstat(filepath.Join(sub, ".git")); err != nil {
			continue // not populated: git does not go there
		}
		if fi, err := os.Lstat(sub); err != nil || !fi.IsDir() {
			continue
		}
		in.count++
		if in.count > gitMaxSubmodules || depth >= gitMaxDepth {
			return refuse(CodeGitConfig, "run git outside vtexec",
				"git: more than %d submodules, or submodules nested deeper than %d, to inspect", gitMaxSubmodules, gitMaxDepth)
		}
		subAnswers := in.git.Ask(sub, nil)
		subRepo, err := gitRepoOf(sub, subAnswers)
		if err != nil {
			return err
		}
		if subRepo == nil {
			continue
		}
		if err := in.repository(sub, nil, subRepo, subAnswers, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// leadingDirs checks the directories leading to index entries (dirs,
// relative to top, each once, in the order of the entries, deepest
// first): git grep (and others) open the working-tree file through them,
// so one that is now a symbolic link must still lead inside.
//
// Where none of them is a link, that is kept with a watch of them and
// of top (a directory becomes a link only by a change in its parent,
// which is one of them), and the next inspection of the same listing
// looks again only if something changed there.
func (in *gitInspection) leadingDirs(top string, dirs []string) error {
	if leadingDirsKept(top, dirs) {
		return nil
	}
	var watch *dirwatch.Watch
	if leadingKept.Again(top) {
		watch = dirwatch.New()
	}
	if watch != nil && (len(dirs) > maxLeadingWatches || !watch.Add(top)) {
		watch.Close()
		watch = nil
	}
	links := false
	for _, dir := range dirs {
		p := filepath.Join(top, dir)
		if watch != nil && !watch.Add(p) {
			watch.Close() // gone, or not a directory: looked at below
			watch = nil
		}
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		links = true
		if _, err := in.ws.Resolve(p, workspace.Read); err != nil {
			watch.Close()
			target, _ := os.Readlink(p)
			return &Finding{Code: string(workspace.Outside),
				Reason: fmt.Sprintf("git: %s, a directory of files in the index, is now a symbolic link to %s, outside the workspace; git would read the files through it", in.ws.Rel(p), target),
				Hint:   "remove the link (a person can), or run git outside vtexec"}
		}
	}
	if links || watch == nil {
		watch.Close()
		return nil
	}
	leadingKept.Put(top, dirs, watch)
	return nil
}

// maxLeadingWatches bounds the directories one kept check watches.
const maxLeadingWatches = 8192

// leadingKept is, per top-level directory, the last listing whose
// leading directories held no link.
var leadingKept = dirwatch.Kept[string, []string]{Max: 64}

// leadingDirsKept reports whether dirs (the same listing, not merely an
// equal one: a listing is kept with git's answers and replaced with
// them) were found free of links under top and nothing has changed
// there since.
func leadingDirsKept(top string, dirs []string) bool {
	kept, ok := leadingKept.Get(top)
	return ok && len(kept) == len(dirs) && (len(dirs) == 0 || &kept[0] == &dirs[0])
}

// gitRisk is when a configuration key makes git run a program.
type gitRisk int

const (
	gitRiskNone    gitRisk = iota
	gitRiskAlways          // on commands that read or change the repository
	gitRiskNetwork         // only on commands that reach another repository
	gitRiskLFS             // the standard git-lfs filter: asks
)

// gitConfigRisk says what a configuration key makes git run, and when, if
// it does and the runner's environment cannot override it.
func gitConfigRisk(key, value string) (string, gitRisk) {
	lower := strings.ToLower(key)
	section, _, _ := strings.Cut(lower, ".")
	name := lower[strings.LastIndex(lower, ".")+1:]
	sub := strings.Count(lower, ".") >= 2
	switch {
	case lower == "diff.external":
		return "is the external diff program git diff runs", gitRiskAlways
	case section == "diff" && sub && (name == "textconv" || name == "command"):
		return "is a diff driver program, run by diff, log -p, show and blame on the files .gitattributes assigns to it", gitRiskAlways
	case section == "filter" && sub && (name == "clean" || name == "smudge" || name == "process"):
		if gitLFSFilter()[lower] == value {
			return "runs git-lfs", gitRiskLFS
		}
		return "is a filter program, run by status, diff, add and checkout on the files .gitattributes assigns to it", gitRiskAlways
	case section == "merge" && sub && name == "driver":
		return "is a merge driver program, run by merges", gitRiskAlways
	case section == "gpg" && (name == "program" || lower == "gpg.ssh.defaultkeycommand"):
		return "is a signing program, run by signed commits and by --show-signature and %G formats", gitRiskAlways
	case lower == "interactive.difffilter":
		return "is a program interactive git add runs", gitRiskAlways
	case section == "trailer" && sub && (name == "command" || name == "cmd"):
		return "is a program git commit --trailer runs", gitRiskAlways
	case section == "credential" && name == "helper":
		return "is a credential helper program, run when a remote asks for a password", gitRiskNetwork
	case lower == "core.sshcommand":
		return "is the ssh program git runs for remotes", gitRiskNetwork
	case section == "remote" && sub && (name == "uploadpack" || name == "receivepack" || name == "vcs"):
		return "names a program git runs for this remote", gitRiskNetwork
	case section == "submodule" && sub && name == "update" && strings.HasPrefix(value, "!"):
		return "is a shell command git submodule update runs", gitRiskNetwork
	case lower == "core.alternaterefscommand":
		return "is a program git runs to list the refs of alternate object stores (fetch, log --alternate-refs)", gitRiskAlways
	case section == "http" && name == "cookiefile":
		return "is a file git reads and writes cookies in, wherever it is", gitRiskNetwork
	}
	return "", gitRiskNone
}

// gitFalse reports whether git reads a boolean value as false; a key
// with no value at all is true.
func gitFalse(value string) bool {
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "false", "no", "off", "0":
		return true
	}
	return false
}

// gitPathKeys are configuration keys that name a file or directory git
// reads (or, for format.outputDirectory, writes) on the commands vtexec
// allows.
var gitPathKeys = &lazy[map[string]workspace.Access]{make: func() map[string]workspace.Access {
	return map[string]workspace.Access{
		"core.excludesfile":          workspace.Read,
		"core.attributesfile":        workspace.Read,
		"mailmap.file":               workspace.Read,
		"diff.orderfile":             workspace.Read,
		"blame.ignorerevsfile":       workspace.Read,
		"format.signaturefile":       workspace.Read,
		"commit.template":            workspace.Read,
		"gpg.ssh.allowedsignersfile": workspace.Read,
		"gpg.ssh.revocationfile":     workspace.Read,
		"init.templatedir":           workspace.Read,
		"format.outputdirectory":     workspace.Write,
	}
}}

// pathKey checks a key of the repository's configuration that names a
// path: it must lead inside the workspace (and for a write, not into a
// protected place), whether git takes it from the directory it runs in or
// from the top of the working tree.
func (in *gitInspection) pathKey(dir, lower, key, value, shown string) string {
	access, ok := gitPathKeys.get()[lower]
	if !ok || value == "" {
		return ""
	}
	bad := fmt.Sprintf("%s = %s in %s names a path outside the workspace (or write-protected), which git would read or write", key, value, shown)
	if strings.HasPrefix(value, "~") || strings.HasPrefix(value, "%(") {
		return bad
	}
	bases := []string{dir}
	if in.top != "" {
		bases = append(bases, in.top)
	}
	for _, base := range bases {
		if _, err := resolveBoth(in.ws, base, value, access); err != nil {
			return bad
		}
	}
	return ""
}

// gitDirContents checks what the git directory leads to: a symbolic link
// inside it (BISECT_LOG, packed-refs, a ref, a pack) is read by git like
// the file it names, and objects/info/alternates adds other object stores
// whose contents git shows; both must stay inside the workspace. Hooks
// are not looked at: they never run.
func (in *gitInspection) gitDirContents(repo *gitrepo.Repo) error {
	var dirs []string
	for _, d := range []string{repo.GitDir, repo.CommonDir} {
		// A linked worktree's git directories may lie outside (see
		// placement); their history is what it reads.
		if in.ws.Contains(d) && (len(dirs) == 0 || dirs[0] != d) {
			dirs = append(dirs, d)
		}
	}
	for _, root := range dirs {
		w := in.git.WalkGitDir(root)
		for _, it := range w.Items {
			if it.Nested {
				if err := in.nestedGitDir(it.Path); err != nil {
					return err
				}
				continue
			}
			real, err := in.ws.Resolve(it.Path, workspace.Read)
			if err != nil {
				target, _ := os.Readlink(it.Path)
				return &Finding{Code: string(workspace.Outside),
					Reason: fmt.Sprintf("git: %s in the git directory is a symbolic link to %s, outside the workspace; git would read it", in.ws.Rel(it.Path), target),
					Hint:   "remove the link (a person can), or run git outside vtexec"}
			}
			// A link to an ordinary workspace file would make the git
			// directory writable by the back door: a command allowed to
			// write that file would rewrite what git reads.
			if in.ws.CheckReal(real, workspace.Write) == nil {
				target, _ := os.Readlink(it.Path)
				return refuse(CodeGitConfig, "remove the link (a person can), or run git outside vtexec",
					"git: %s in the git directory is a symbolic link to %s, an ordinary workspace path a command could write; the git directory is protected only where its entries lead to protected places", in.ws.Rel(it.Path), target)
			}
		}
		if err := in.hardLinkedEntries(root); err != nil {
			return err
		}
		if w.TooLarge {
			return refuse(CodeGitConfig, "pack the repository (git gc) or run git outside vtexec",
				"git: the git directory %s holds more than %d entries, too many to inspect", in.ws.Rel(root), gitrepo.WalkLimit)
		}
	}
	if !in.ws.Contains(repo.CommonDir) {
		return nil
	}
	return in.alternates(filepath.Join(repo.CommonDir, "objects"), 0)
}

// gitConfigFiles are the files of a git directory git reads configuration
// or names of programs and files from.
var gitConfigFiles = []string{"config", "config.worktree", "info/attributes", "info/exclude", "info/sparse-checkout",
	"commondir", "gitdir", "objects/info/alternates", "HEAD", "packed-refs"}

// hardLinkedEntries refuses a git directory whose configuration files
// have another name: a write under that name would change them. Only
// these files are looked at (objects are hard-linked by local clones),
// every time, since a new link does not change the git directory itself.
func (in *gitInspection) hardLinkedEntries(dir string) error {
	for _, name := range gitConfigFiles {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if n := fsutil.LinkCount(fi); n > 1 {
			return refuse(CodeGitConfig, "give the file a single name again (a person can: cp it aside and mv it back), or run git outside vtexec",
				"git: %s in the git directory has %d names (hard links); a write under another name would change what git reads", in.ws.Rel(p), n)
		}
	}
	return nil
}

// nestedGitDir checks a git directory found inside another (modules/NAME,
// worktrees/NAME): its commondir file and its alternates must stay
// inside the workspace.
func (in *gitInspection) nestedGitDir(dir string) error {
	body, err := readGitFile(filepath.Join(dir, "commondir"))
	if err != nil {
		return refuse(CodeGitConfig, "remove it (a person can), or run git outside vtexec",
			"git: %s/commondir %v", in.ws.Rel(dir), err)
	}
	if body != nil {
		common := strings.TrimSpace(string(body))
		if _, err := resolveBoth(in.ws, dir, common, workspace.Read); err != nil {
			return &Finding{Code: string(workspace.Outside),
				Reason: fmt.Sprintf("git: %s/commondir names %s, outside the workspace; git would use that repository", in.ws.Rel(dir), strings.TrimSpace(string(body))),
				Hint:   "remove the nested git directory (a person can), or run git outside vtexec"}
		}
	}
	return in.alternates(filepath.Join(dir, "objects"), 0)
}

// alternates checks objects/info/alternates below objects, and theirs in
// turn (git follows five levels).
func (in *gitInspection) alternates(objects string, depth int) error {
	body, err := readGitFile(filepath.Join(objects, "info", "alternates"))
	if err != nil {
		return refuse(CodeGitConfig, "remove it (a person can), or run git outside vtexec",
			"git: %s %v", in.ws.Rel(filepath.Join(objects, "info", "alternates")), err)
	}
	if body == nil {
		return nil
	}
	if depth >= 5 {
		return refuse(CodeGitConfig, "run git outside vtexec", "git: alternate object stores nested deeper than 5 levels")
	}
	for _, line := range strings.Split(string(body), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "\"") {
			unq, err := strconv.Unquote(line)
			if err != nil {
				return refuse(CodeGitConfig, "run git outside vtexec", "git: cannot read the alternates line %s", line)
			}
			line = unq
		}
		real, err := resolveBoth(in.ws, objects, line, workspace.Read)
		if err != nil {
			return &Finding{Code: string(workspace.Outside),
				Reason: fmt.Sprintf("git: the repository borrows objects from %s (objects/info/alternates), outside the workspace; git would show their contents", line),
				Hint:   "a person can remove the alternates file after git repack -a, or run git outside vtexec"}
		}
		if err := in.alternates(real, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// gitLFSFilter is the filter `git lfs install` writes.
var gitLFSFilter = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"filter.lfs.clean":   "git-lfs clean -- %f",
		"filter.lfs.smudge":  "git-lfs smudge -- %f",
		"filter.lfs.process": "git-lfs filter-process",
	}
})

// gitWritable reports whether a command vtexec allows could write p: it
// resolves for writing in the workspace (inside, and not below .git).
func gitWritable(ws *workspace.Workspace, p string) bool {
	if p == "" {
		return false
	}
	_, err := ws.Resolve(p, workspace.Write)
	return err == nil
}

// gitSmallFile bounds the files of a git directory vtexec reads itself
// (commondir, gitdir, alternates): a path or a list of paths.
const gitSmallFile = 64 << 10

// readGitFile reads such a file: nil when it is missing; an error when
// it is not a regular file (a named pipe would block every read) or is
// larger than gitSmallFile.
func readGitFile(path string) ([]byte, error) {
	body, _, err := fsutil.ReadRegular(path, gitSmallFile, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		var fe *fsutil.FileError
		if errors.As(err, &fe) {
			return nil, errors.New(fe.Reason)
		}
		return nil, errors.New("cannot be read: " + err.Error())
	}
	return body, nil
}
