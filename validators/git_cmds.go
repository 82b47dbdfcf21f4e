package validators

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// The git subcommands vtexec knows, each with its flag table and what it
// does. Subcommands with subcommands of their own (stash, remote, ...)
// dispatch to a second table.

// gitCmds is filled by gitCommands on the first git command (or
// catalogue): the checks refer back to it. Its flag tables are the
// largest of the catalogue, ~2 ms to build.
var (
	gitCmds     map[string]*gitCmd
	gitCmdsOnce sync.Once
)

// gitCommands returns gitCmds, built on first use.
func gitCommands() map[string]*gitCmd {
	gitCmdsOnce.Do(buildGitCmds)
	return gitCmds
}

// gitOps is a shorthand for the Doc of subcommands taking revisions and
// pathspecs.
const gitOps = "revisions, then pathspecs (after --) confined to the workspace"

func buildGitCmds() {
	gitCmds = map[string]*gitCmd{}
	for name, cmd := range gitReadCmds() {
		gitCmds[name] = cmd
	}
	for name, cmd := range gitWriteCmds() {
		cmd.class = gitWrite
		gitCmds[name] = cmd
	}
	for name, cmd := range gitNetworkCmds() {
		cmd.class = gitNetwork
		gitCmds[name] = cmd
	}
	for name, cmd := range gitCmds {
		if cmd.spec.Name == "" {
			cmd.spec.Name = "git " + name
		}
	}
}

// gitReadCmds are the subcommands that only read (some have write forms,
// which their check finds and asks about).
func gitReadCmds() map[string]*gitCmd {
	log := func(name string) *gitCmd {
		return &gitCmd{spec: gitSpec(name, gitOps, true, gitRevFlags, gitDiffFlags)}
	}
	status := &gitCmd{check: gitPathsOnly, spec: gitSpec("status", "pathspecs, confined", false, []Flag{
		{Short: "v", Long: "verbose"}, {Short: "s", Long: "short"}, {Short: "b", Long: "branch"},
		{Long: "show-stash"}, {Long: "ahead-behind"}, {Long: "porcelain", Arg: Text, Optional: true},
		{Long: "long"}, {Short: "z", Long: "null"},
		{Short: "u", Long: "untracked-files", Arg: Text, Optional: true},
		{Long: "ignored", Arg: Text, Optional: true}, {Long: "ignore-submodules", Arg: Text, Optional: true},
		{Long: "column", Arg: Text, Optional: true}, {Long: "renames"},
		{Short: "M", Long: "find-renames", Arg: Text, Optional: true},
	})}
	diff := &gitCmd{check: gitDiffCheck, spec: gitSpec("diff",
		"revisions or --cached/--staged, then pathspecs (after --); with --no-index two paths; all confined", false, []Flag{
			{Long: "cached"}, {Long: "staged"}, {Long: "merge-base"}, {Long: "no-index"},
			{Long: "base"}, {Long: "ours"}, {Long: "theirs"},
			{Short: "0"}, {Short: "1"}, {Short: "2"}, {Short: "3"},
		}, gitDiffFlags)}
	return map[string]*gitCmd{
		"status":      status,
		"log":         log("log"),
		"whatchanged": log("whatchanged"),
		"show":        log("show"),
		"diff":        diff,
		"diff-tree": {spec: gitSpec("diff-tree", gitOps, false, []Flag{
			{Short: "r"}, {Short: "t"}, {Long: "root"}, {Long: "no-commit-id"}, {Long: "stdin"},
			{Short: "m"}, {Short: "c"}, {Long: "cc"}, {Short: "v"}, {Long: "always"},
			{Long: "merge-base"}, {Long: "combined-all-paths"},
			{Long: "pretty", Arg: Text, Optional: true}, {Long: "format", Arg: Text, Optional: true},
			{Long: "encoding", Arg: Text},
		}, gitDiffFlags)},
		"range-diff": {spec: gitSpec("range-diff", "revision ranges", false, []Flag{
			{Long: "creation-factor", Arg: Number}, {Long: "dual-color"}, {Long: "left-only"}, {Long: "right-only"},
			{Long: "notes", Arg: Text, Optional: true},
		}, gitDiffFlags)},
		"rev-list": {spec: gitSpec("rev-list", gitOps, true, []Flag{
			{Long: "count"}, {Long: "objects"}, {Long: "objects-edge"}, {Long: "objects-edge-aggressive"},
			{Long: "disk-usage", Arg: Text, Optional: true}, {Long: "header"}, {Long: "quiet"},
			{Long: "bisect-vars"}, {Long: "bisect-all"}, {Long: "timestamp"}, {Long: "unpacked"},
			{Long: "object-names"}, {Long: "filter", Arg: Text, Optional: true}, {Long: "filter-print-omitted"},
			{Long: "missing", Arg: Text, Optional: true}, {Long: "exclude-promisor-objects"},
			{Long: "indexed-objects"}, {Long: "in-commit-order"}, {Long: "use-bitmap-index"},
		}, gitRevFlagsNotLog())},
		"shortlog": {spec: gitSpec("shortlog", gitOps, true, []Flag{
			{Short: "c", Long: "committer"}, {Short: "n", Long: "numbered"}, {Short: "s", Long: "summary"},
			{Short: "e", Long: "email"}, {Short: "w", Arg: Text, Optional: true}, {Long: "group", Arg: Text},
			{Long: "format", Arg: Text, Optional: true},
		}, gitRevFlags)},
		"blame":    gitBlame("blame"),
		"annotate": gitBlame("annotate"),
		"grep": {check: gitGrepCheck, spec: gitSpec("grep", "PATTERN (unless -e/-f), revisions, then pathspecs confined to the workspace", true, []Flag{
			{Long: "cached"}, {Long: "no-index"}, {Long: "untracked"}, {Long: "exclude-standard"},
			{Long: "recurse-submodules"}, {Short: "v", Long: "invert-match"}, {Short: "i", Long: "ignore-case"},
			{Short: "w", Long: "word-regexp"}, {Short: "a", Long: "text"}, {Short: "I"},
			{Long: "textconv", Forbid: "runs the textconv programs of the configuration"},
			{Short: "r", Long: "recursive"}, {Long: "max-depth", Arg: Number},
			{Short: "E", Long: "extended-regexp"}, {Short: "G", Long: "basic-regexp"},
			{Short: "F", Long: "fixed-strings"}, {Short: "P", Long: "perl-regexp"},
			{Short: "n", Long: "line-number"}, {Long: "column"}, {Short: "h"}, {Short: "H"},
			{Long: "full-name"}, {Short: "l", Long: "files-with-matches"}, {Long: "name-only"},
			{Short: "L", Long: "files-without-match"}, {Short: "z", Long: "null"},
			{Short: "o", Long: "only-matching"}, {Short: "c", Long: "count"},
			{Long: "color", Arg: Text, Optional: true}, {Long: "break"}, {Long: "heading"},
			{Short: "C", Long: "context", Arg: Number}, {Short: "B", Long: "before-context", Arg: Number},
			{Short: "A", Long: "after-context", Arg: Number}, {Long: "threads", Arg: Number},
			{Short: "p", Long: "show-function"}, {Short: "W", Long: "function-context"},
			{Short: "f", Arg: ReadPath, Pattern: true}, {Short: "e", Arg: Text, Pattern: true},
			{Long: "and"}, {Long: "or"}, {Long: "not"}, {Short: "q", Long: "quiet"}, {Long: "all-match"},
			{Short: "O", Long: "open-files-in-pager", Arg: Text, Optional: true, Forbid: "runs the matching files through a pager program"},
			{Long: "ext-grep"}, {Short: "m", Long: "max-count", Arg: Number},
		})},
		"ls-files": {check: gitPathsOnly, spec: gitSpec("ls-files", "pathspecs, confined", false, []Flag{
			{Short: "z"}, {Short: "t"}, {Short: "v"}, {Short: "f"}, {Short: "c", Long: "cached"},
			{Short: "d", Long: "deleted"}, {Short: "m", Long: "modified"}, {Short: "o", Long: "others"},
			{Short: "i", Long: "ignored"}, {Short: "s", Long: "stage"}, {Short: "k", Long: "killed"},
			{Long: "directory"}, {Long: "eol"}, {Long: "empty-directory"}, {Short: "u", Long: "unmerged"},
			{Long: "resolve-undo"}, {Short: "x", Long: "exclude", Arg: Text},
			{Short: "X", Long: "exclude-from", Arg: ReadPath}, {Long: "exclude-per-directory", Arg: Text},
			{Long: "exclude-standard"}, {Long: "full-name"}, {Long: "recurse-submodules"},
			{Long: "error-unmatch"}, {Long: "with-tree", Arg: Text}, {Long: "abbrev", Arg: Text, Optional: true},
			{Long: "debug"}, {Long: "deduplicate"}, {Long: "sparse"}, {Long: "format", Arg: Text},
		})},
		"ls-tree": {spec: gitSpec("ls-tree", "a tree-ish, then paths in it", false, []Flag{
			{Short: "d"}, {Short: "r"}, {Short: "t"}, {Short: "z"}, {Short: "l", Long: "long"},
			{Long: "name-only"}, {Long: "name-status"}, {Long: "object-only"}, {Long: "full-name"},
			{Long: "full-tree"}, {Long: "format", Arg: Text}, {Long: "abbrev", Arg: Text, Optional: true},
		})},
		"rev-parse": {spec: gitSpec("rev-parse", "revisions and names to print", false, []Flag{
			{Long: "git-dir"}, {Long: "absolute-git-dir"}, {Long: "git-common-dir"}, {Long: "show-toplevel"},
			{Long: "show-prefix"}, {Long: "show-cdup"}, {Long: "show-superproject-working-tree"},
			{Long: "shared-index-path"}, {Long: "is-inside-work-tree"}, {Long: "is-inside-git-dir"},
			{Long: "is-bare-repository"}, {Long: "is-shallow-repository"},
			{Long: "show-object-format", Arg: Text, Optional: true},
			{Long: "abbrev-ref", Arg: Text, Optional: true}, {Long: "short", Arg: Text, Optional: true},
			{Long: "verify"}, {Short: "q", Long: "quiet"}, {Long: "symbolic"}, {Long: "symbolic-full-name"},
			{Long: "all"}, {Long: "branches", Arg: Text, Optional: true}, {Long: "tags", Arg: Text, Optional: true},
			{Long: "remotes", Arg: Text, Optional: true}, {Long: "glob", Arg: Text, Optional: true},
			{Long: "exclude", Arg: Text, Optional: true}, {Long: "exclude-hidden", Arg: Text, Optional: true},
			{Long: "disambiguate", Arg: Text, Optional: true},
			{Long: "since", Arg: Text, Optional: true}, {Long: "after", Arg: Text, Optional: true},
			{Long: "until", Arg: Text, Optional: true}, {Long: "before", Arg: Text, Optional: true},
			{Long: "default", Arg: Text}, {Long: "revs-only"}, {Long: "no-revs"}, {Long: "flags"},
			{Long: "no-flags"}, {Long: "prefix", Arg: Text}, {Long: "sq"}, {Long: "sq-quote"}, {Long: "not"},
			{Long: "local-env-vars"}, {Long: "path-format", Arg: Text, Optional: true},
			{Long: "git-path", Arg: Text}, {Long: "resolve-git-dir", Arg: ReadPath},
			{Long: "parseopt"}, {Long: "keep-dashdash"}, {Long: "stop-at-non-option"}, {Long: "stuck-long"},
			{Long: "end-of-options"},
		})},
		"describe": {spec: gitSpec("describe", "commits", false, []Flag{
			{Long: "contains"}, {Long: "debug"}, {Long: "all"}, {Long: "tags"}, {Long: "long"},
			{Long: "first-parent"}, {Long: "abbrev", Arg: Text, Optional: true}, {Long: "exact-match"},
			{Long: "candidates", Arg: Number}, {Long: "match", Arg: Text}, {Long: "exclude", Arg: Text},
			{Long: "always"}, {Long: "dirty", Arg: Text, Optional: true}, {Long: "broken", Arg: Text, Optional: true},
		})},
		"show-ref": {spec: gitSpec("show-ref", "ref patterns", false, []Flag{
			{Long: "tags"}, {Long: "heads"}, {Long: "verify"}, {Long: "head"}, {Short: "d", Long: "dereference"},
			{Short: "s", Long: "hash", Arg: Text, Optional: true}, {Long: "abbrev", Arg: Text, Optional: true},
			{Short: "q", Long: "quiet"}, {Long: "exclude-existing", Arg: Text, Optional: true},
		})},
		"cat-file": {spec: gitSpec("cat-file", "[TYPE] OBJECT", false, []Flag{
			{Short: "e"}, {Short: "p"}, {Short: "t"}, {Short: "s"}, {Long: "allow-unknown-type"},
			{Long: "use-mailmap"}, {Long: "mailmap"},
			{Long: "batch", Arg: Text, Optional: true}, {Long: "batch-check", Arg: Text, Optional: true},
			{Long: "batch-command", Arg: Text, Optional: true}, {Short: "z"}, {Long: "batch-all-objects"},
			{Long: "buffer"}, {Long: "follow-symlinks"}, {Long: "unordered"},
			{Long: "textconv", Forbid: "runs the textconv programs of the configuration; use -p"},
			{Long: "filters", Forbid: "runs the smudge filters of the configuration; use -p"},
			{Long: "path", Arg: Text},
		})},
		"for-each-ref": {lastArgDefault: []string{"--contains", "--no-contains", "--merged", "--no-merged"},
			spec: gitSpec("for-each-ref", "ref patterns", false, []Flag{
				{Short: "s", Long: "shell"}, {Short: "p", Long: "perl"}, {Long: "python"}, {Long: "tcl"},
				{Long: "count", Arg: Number},
			}, gitListing)},
		"merge-base": {spec: gitSpec("merge-base", "commits", false, []Flag{
			{Short: "a", Long: "all"}, {Long: "octopus"}, {Long: "independent"}, {Long: "is-ancestor"},
			{Long: "fork-point"},
		})},
		"name-rev": {spec: gitSpec("name-rev", "commits", false, []Flag{
			{Long: "name-only"}, {Long: "tags"}, {Long: "refs", Arg: Text}, {Long: "exclude", Arg: Text},
			{Long: "all"}, {Long: "stdin"}, {Long: "annotate-stdin"}, {Long: "undefined"}, {Long: "always"},
		})},
		"symbolic-ref": {check: gitSymbolicRefCheck, what: "changes or deletes a symbolic ref",
			spec: gitSpec("symbolic-ref", "NAME (reads it), or NAME REF (sets it: asks)", false, []Flag{
				{Short: "q", Long: "quiet"}, {Short: "d", Long: "delete"}, {Long: "short"}, {Long: "recurse"},
				{Short: "m", Arg: Text},
			})},
		"check-ignore": {check: gitPathsOnly, spec: gitSpec("check-ignore", "paths, confined", false, []Flag{
			{Short: "q", Long: "quiet"}, {Short: "v", Long: "verbose"}, {Long: "stdin"}, {Short: "z"},
			{Short: "n", Long: "non-matching"}, {Long: "no-index"},
		})},
		"check-attr": {spec: gitSpec("check-attr", "attribute names, then paths (after --), confined", false, []Flag{
			{Short: "a", Long: "all"}, {Long: "cached"}, {Long: "stdin"}, {Short: "z"}, {Long: "source", Arg: Text},
		})},
		"count-objects": {spec: gitSpec("count-objects", "none", false, []Flag{
			{Short: "v", Long: "verbose"}, {Short: "H", Long: "human-readable"},
		})},
		"cherry": {spec: gitSpec("cherry", "[UPSTREAM [HEAD [LIMIT]]]", false, []Flag{
			{Long: "abbrev", Arg: Text, Optional: true}, {Short: "v", Long: "verbose"},
		})},
		"show-branch": {spec: gitSpec("show-branch", "revisions", false, []Flag{
			{Short: "a", Long: "all"}, {Short: "r", Long: "remotes"}, {Long: "color", Arg: Text, Optional: true},
			{Long: "more", Arg: Text, Optional: true}, {Long: "list"}, {Long: "name"}, {Long: "current"},
			{Long: "sha1-name"}, {Long: "merge-base"}, {Long: "independent"}, {Long: "topo-order"},
			{Long: "topics"}, {Long: "sparse"}, {Long: "date-order"}, {Short: "g", Long: "reflog", Arg: Text, Optional: true},
		})},
		"format-patch": {check: gitFormatPatchCheck, spec: gitSpec("format-patch",
			"revisions; patches are written to the current directory or -o DIR, confined (or --stdout)", true, []Flag{
				{Short: "n", Long: "numbered"}, {Short: "N", Long: "no-numbered"}, {Short: "s", Long: "signoff"},
				{Long: "stdout"}, {Long: "cover-letter"}, {Long: "numbered-files"}, {Long: "suffix", Arg: NamePart},
				{Long: "start-number", Arg: Number}, {Short: "v", Long: "reroll-count", Arg: NamePart},
				{Long: "filename-max-length", Arg: Number}, {Long: "rfc"},
				{Long: "cover-from-description", Arg: Text}, {Long: "subject-prefix", Arg: Text},
				{Short: "o", Long: "output-directory", Arg: WritePath}, {Short: "k", Long: "keep-subject"},
				{Long: "binary"}, {Long: "zero-commit"}, {Long: "ignore-if-in-upstream"}, {Short: "p", Long: "no-stat"},
				{Long: "add-header", Arg: Text}, {Long: "to", Arg: Text}, {Long: "cc", Arg: Text},
				{Long: "from", Arg: Text, Optional: true}, {Long: "in-reply-to", Arg: Text},
				{Long: "attach", Arg: Text, Optional: true}, {Long: "inline", Arg: Text, Optional: true},
				{Long: "thread", Arg: Text, Optional: true}, {Long: "signature", Arg: Text},
				{Long: "base", Arg: Text}, {Long: "signature-file", Arg: ReadPath}, {Short: "q", Long: "quiet"},
				{Long: "progress"}, {Long: "interdiff", Arg: Text}, {Long: "range-diff", Arg: Text},
				{Long: "creation-factor", Arg: Number}, {Long: "force-in-body-from"},
			}, gitRevFlagsNotLog(), gitDiffFlags)},
		"branch": {check: gitBranchCheck, what: "creates, renames, copies or deletes a branch, or changes its upstream",
			lastArgDefault: []string{"--contains", "--no-contains", "--merged", "--no-merged", "--points-at"},
			spec: gitSpec("branch", "patterns when listing; NAME [START] to create (asks)", false, []Flag{
				{Short: "v", Long: "verbose"}, {Short: "q", Long: "quiet"},
				{Short: "t", Long: "track", Arg: Text, Optional: true}, {Short: "u", Long: "set-upstream-to", Arg: Text},
				{Long: "unset-upstream"}, {Short: "r", Long: "remotes"}, {Long: "abbrev", Arg: Text, Optional: true},
				{Short: "a", Long: "all"}, {Short: "d", Long: "delete"}, {Short: "D"}, {Short: "m", Long: "move"},
				{Short: "M"}, {Short: "c", Long: "copy"}, {Short: "C"}, {Short: "l", Long: "list"},
				{Long: "show-current"}, {Long: "create-reflog"}, {Long: "edit-description"},
				{Short: "f", Long: "force"}, {Long: "recurse-submodules"},
			}, gitListing)},
		"tag": {check: gitTagCheck, what: "creates or deletes a tag",
			lastArgDefault: []string{"--contains", "--no-contains", "--merged", "--no-merged", "--points-at"},
			spec: gitSpec("tag", "patterns when listing; NAME [COMMIT] to create (asks)", false, []Flag{
				{Short: "l", Long: "list"}, {Short: "n", Arg: Text, Optional: true}, {Short: "d", Long: "delete"},
				{Short: "v", Long: "verify"}, {Short: "a", Long: "annotate"}, {Short: "m", Long: "message", Arg: Text},
				{Short: "F", Long: "file", Arg: ReadPath}, {Short: "e", Long: "edit"}, {Short: "s", Long: "sign"},
				{Long: "cleanup", Arg: Text}, {Short: "u", Long: "local-user", Arg: Text},
				{Short: "f", Long: "force"}, {Long: "create-reflog"},
			}, gitListing)},
		"stash":  gitDispatcher("stash", gitStashCmds(), "push", "list/show read; push (the default), pop, apply, drop, clear, branch, store ask"),
		"reflog": gitDispatcher("reflog", gitReflogCmds(), "show", "show (the default) and exists read; expire and delete ask"),
		"config": {check: gitConfigCheck, what: "changes the repository's configuration",
			spec: gitSpec("config", "NAME [VALUE]; reads run, writes ask, writes of program-running keys are refused", false, []Flag{
				{Long: "global"}, {Long: "system"}, {Long: "local"}, {Long: "worktree"},
				{Short: "f", Long: "file", Arg: Text}, {Long: "blob", Arg: Text},
				{Long: "get"}, {Long: "get-all"}, {Long: "get-regexp"}, {Long: "get-urlmatch"},
				{Long: "replace-all"}, {Long: "add"}, {Long: "unset"}, {Long: "unset-all"},
				{Long: "rename-section"}, {Long: "remove-section"}, {Short: "l", Long: "list"},
				{Long: "fixed-value"}, {Long: "get-color"}, {Long: "get-colorbool"},
				{Short: "e", Long: "edit", Forbid: "opens the configuration in an editor; use git config NAME VALUE"},
				{Short: "t", Long: "type", Arg: Text}, {Long: "bool"}, {Long: "int"}, {Long: "bool-or-int"},
				{Long: "bool-or-str"}, {Long: "path"}, {Long: "expiry-date"}, {Short: "z", Long: "null"},
				{Long: "name-only"}, {Long: "includes"}, {Long: "no-includes"}, {Long: "show-origin"}, {Long: "show-scope"},
				{Long: "default", Arg: Text},
			})},
		"remote":    gitDispatcher("remote", gitRemoteCmds(), "list", "list (-v), show -n and get-url read; show and update reach the remote; add, rename, remove, set-* ask"),
		"worktree":  gitDispatcher("worktree", gitWorktreeCmds(), "", "list reads; add, move, remove, prune, lock, unlock, repair ask"),
		"submodule": gitDispatcher("submodule", gitSubmoduleCmds(), "status", "status and summary read; foreach is refused; the rest ask"),
		"bisect":    gitDispatcher("bisect", gitBisectCmds(), "", "log, terms, help read; start, good, bad, skip, reset, ... ask; run and view are refused"),
		"apply": {what: "applies a patch to the working tree or the index", check: gitApplyCheck,
			spec: gitSpec("apply", "patch files to read, confined", false, []Flag{
				{Long: "exclude", Arg: Text}, {Long: "include", Arg: Text}, {Short: "p", Arg: Number},
				{Long: "add"}, {Long: "stat"}, {Long: "numstat"}, {Long: "summary"}, {Long: "check"},
				{Long: "index"}, {Short: "N", Long: "intent-to-add"}, {Long: "cached"},
				{Long: "unsafe-paths", Forbid: "lets the patch write outside the working tree"},
				{Long: "apply"}, {Short: "3", Long: "3way"}, {Long: "build-fake-ancestor", Arg: WritePath},
				{Short: "z"}, {Short: "C", Arg: Number}, {Long: "whitespace", Arg: Text},
				{Long: "ignore-space-change"}, {Long: "ignore-whitespace"}, {Short: "R", Long: "reverse"},
				{Long: "unidiff-zero"}, {Long: "reject"}, {Long: "allow-overlap"}, {Short: "v", Long: "verbose"},
				{Short: "q", Long: "quiet"}, {Long: "inaccurate-eof"}, {Long: "recount"},
				{Long: "directory", Arg: Text}, {Long: "allow-empty"},
			})},
		"version": {noInspect: true, spec: gitSpec("version", "none", false, []Flag{{Long: "build-options"}})},
		"help": {noInspect: true, check: gitHelpCheck, spec: gitSpec("help", "none: lists only (a manual page opens a viewer)", false, []Flag{
			{Short: "a", Long: "all"}, {Long: "external-commands"}, {Long: "aliases"}, {Short: "v", Long: "verbose"},
			{Short: "g", Long: "guides"}, {Short: "c", Long: "config"}, {Long: "user-interfaces"},
			{Long: "developer-interfaces"},
			{Short: "m", Long: "man", Forbid: "opens a manual page viewer"},
			{Short: "w", Long: "web", Forbid: "opens a web browser"},
			{Short: "i", Long: "info", Forbid: "opens the info viewer"},
		})},
	}
}

// gitBlame is git blame (and annotate): a file, optionally at a revision.
func gitBlame(name string) *gitCmd {
	return &gitCmd{spec: gitSpec(name, "[REVISION] [--] FILE, confined", false, []Flag{
		{Long: "incremental"}, {Short: "b"}, {Long: "root"}, {Long: "show-stats"}, {Long: "progress"},
		{Long: "score-debug"}, {Short: "f", Long: "show-name"}, {Short: "n", Long: "show-number"},
		{Short: "p", Long: "porcelain"}, {Long: "line-porcelain"}, {Short: "c"}, {Short: "t"},
		{Short: "l"}, {Short: "s"}, {Short: "e", Long: "show-email"}, {Short: "w"},
		{Long: "ignore-rev", Arg: Text}, {Long: "ignore-revs-file", Arg: ReadPath},
		{Long: "color-lines"}, {Long: "color-by-age"}, {Long: "minimal"},
		{Short: "S", Arg: ReadPath}, {Long: "contents", Arg: ReadPath},
		{Short: "C", Arg: Text, Optional: true}, {Short: "M", Arg: Text, Optional: true},
		{Short: "L", Arg: Text}, {Long: "abbrev", Arg: Text, Optional: true},
		{Long: "since", Arg: Text}, {Long: "reverse"}, {Long: "first-parent"},
		{Long: "encoding", Arg: Text}, {Long: "date", Arg: Text},
		{Long: "textconv", Forbid: "runs the textconv programs of the configuration"},
	})}
}

// gitWriteCmds change the repository or the working tree: they ask.
func gitWriteCmds() map[string]*gitCmd {
	add := &gitCmd{what: "stages changes in the index", check: gitPathsOnly,
		spec: gitSpec("add", "pathspecs, confined", false, []Flag{
			{Short: "n", Long: "dry-run"}, {Short: "v", Long: "verbose"},
			{Short: "i", Long: "interactive", Forbid: gitInteractive},
			{Short: "p", Long: "patch", Forbid: gitInteractive},
			{Short: "e", Long: "edit", Forbid: gitInteractive},
			{Short: "f", Long: "force"}, {Short: "u", Long: "update"}, {Long: "renormalize"},
			{Short: "N", Long: "intent-to-add"}, {Short: "A", Long: "all"}, {Long: "ignore-removal"},
			{Long: "refresh"}, {Long: "ignore-errors"}, {Long: "ignore-missing"}, {Long: "sparse"},
			{Long: "chmod", Arg: Text},
		}, gitPathFile)}
	checkout := []Flag{
		{Short: "q", Long: "quiet"}, {Long: "progress"}, {Long: "recurse-submodules", Arg: Text, Optional: true},
		{Short: "m", Long: "merge"}, {Long: "conflict", Arg: Text}, {Short: "d", Long: "detach"},
		{Short: "t", Long: "track", Arg: Text, Optional: true}, {Short: "f", Long: "force"},
		{Long: "orphan", Arg: Text}, {Long: "overwrite-ignore"}, {Long: "ignore-other-worktrees"},
		{Long: "guess"},
	}
	return map[string]*gitCmd{
		"add":   add,
		"stage": add,
		"commit": {what: "records a commit", spec: gitSpec("commit", "pathspecs, confined", false, []Flag{
			{Short: "q", Long: "quiet"}, {Short: "v", Long: "verbose"},
			{Short: "F", Long: "file", Arg: ReadPath}, {Long: "author", Arg: Text}, {Long: "date", Arg: Text},
			{Short: "m", Long: "message", Arg: Text}, {Short: "c", Long: "reedit-message", Arg: Text},
			{Short: "C", Long: "reuse-message", Arg: Text}, {Long: "fixup", Arg: Text}, {Long: "squash", Arg: Text},
			{Long: "reset-author"}, {Long: "trailer", Arg: Text}, {Short: "s", Long: "signoff"},
			{Short: "t", Long: "template", Arg: ReadPath}, {Short: "e", Long: "edit"},
			{Long: "cleanup", Arg: Text}, {Long: "status"}, {Short: "a", Long: "all"},
			{Short: "i", Long: "include"}, {Long: "interactive", Forbid: gitInteractive},
			{Short: "p", Long: "patch", Forbid: gitInteractive}, {Short: "o", Long: "only"},
			{Short: "n", Long: "no-verify"}, {Long: "verify"}, {Long: "dry-run"}, {Long: "short"}, {Long: "branch"},
			{Long: "ahead-behind"}, {Long: "porcelain"}, {Long: "long"}, {Short: "z", Long: "null"},
			{Long: "amend"}, {Long: "no-post-rewrite"}, {Short: "u", Long: "untracked-files", Arg: Text, Optional: true},
			{Long: "allow-empty"}, {Long: "allow-empty-message"},
		}, gitSign, gitPathFile)},
		"checkout": {what: "switches branches or overwrites files in the working tree", check: gitNewBranchOnly, checkDecides: true,
			spec: gitSpec("checkout", "a branch or commit, then pathspecs (after --), confined", false, []Flag{
				{Short: "b", Arg: Text}, {Short: "B", Arg: Text}, {Short: "l"}, {Long: "overlay"},
				{Short: "2", Long: "ours"}, {Short: "3", Long: "theirs"},
				{Short: "p", Long: "patch", Forbid: gitInteractive}, {Long: "ignore-skip-worktree-bits"},
			}, checkout, gitPathFile)},
		"switch": {what: "switches branches", check: gitNewBranchOnly, checkDecides: true, spec: gitSpec("switch", "a branch or commit", false, []Flag{
			{Short: "c", Long: "create", Arg: Text}, {Short: "C", Long: "force-create", Arg: Text},
			{Long: "discard-changes"},
		}, checkout)},
		"restore": {what: "overwrites files in the working tree or the index", check: gitPathsOnly,
			spec: gitSpec("restore", "pathspecs, confined", false, []Flag{
				{Short: "s", Long: "source", Arg: Text}, {Short: "S", Long: "staged"}, {Short: "W", Long: "worktree"},
				{Long: "ignore-unmerged"}, {Long: "overlay"}, {Short: "q", Long: "quiet"}, {Long: "progress"},
				{Long: "recurse-submodules", Arg: Text, Optional: true}, {Short: "m", Long: "merge"},
				{Long: "conflict", Arg: Text}, {Short: "2", Long: "ours"}, {Short: "3", Long: "theirs"},
				{Short: "p", Long: "patch", Forbid: gitInteractive}, {Long: "ignore-skip-worktree-bits"},
			}, gitPathFile)},
		"reset": {what: "moves HEAD or resets the index (with --hard, the working tree)",
			spec: gitSpec("reset", "a commit, then pathspecs (after --), confined", false, []Flag{
				{Short: "q", Long: "quiet"}, {Long: "refresh"}, {Long: "mixed"}, {Long: "soft"}, {Long: "hard"},
				{Long: "merge"}, {Long: "keep"}, {Long: "recurse-submodules", Arg: Text, Optional: true},
				{Short: "p", Long: "patch", Forbid: gitInteractive}, {Short: "N", Long: "intent-to-add"},
			}, gitPathFile)},
		"merge": {what: "merges into the current branch", check: gitStrategyCheck,
			spec: gitSpec("merge", "commits to merge", false, []Flag{
				{Short: "m", Long: "message", Arg: Text}, {Short: "F", Long: "file", Arg: ReadPath},
				{Long: "into-name", Arg: Text}, {Short: "v", Long: "verbose"}, {Short: "q", Long: "quiet"},
				{Long: "abort"}, {Long: "quit"}, {Long: "continue"}, {Long: "progress"},
			}, gitMergeFlags, gitStrategy, gitSign)},
		"rebase": {what: "rewrites the current branch's history", check: gitStrategyCheck,
			spec: gitSpec("rebase", "[UPSTREAM [BRANCH]]", false, []Flag{
				{Long: "onto", Arg: Text}, {Long: "keep-base"}, {Long: "no-verify"}, {Long: "verify"},
				{Short: "q", Long: "quiet"}, {Short: "v", Long: "verbose"}, {Short: "n", Long: "no-stat"}, {Long: "stat"},
				{Long: "signoff"}, {Long: "committer-date-is-author-date"}, {Long: "reset-author-date"},
				{Long: "ignore-date"}, {Short: "C", Arg: Number}, {Long: "ignore-whitespace"},
				{Long: "whitespace", Arg: Text}, {Short: "f", Long: "force-rebase"}, {Long: "ff"},
				{Long: "continue"}, {Long: "skip"}, {Long: "abort"}, {Long: "quit"}, {Long: "edit-todo"},
				{Long: "show-current-patch"}, {Long: "apply"}, {Short: "m", Long: "merge"},
				{Short: "i", Long: "interactive"}, {Long: "rerere-autoupdate"}, {Long: "empty", Arg: Text},
				{Long: "autosquash"}, {Long: "update-refs"}, {Long: "autostash"},
				{Short: "x", Long: "exec", Arg: Text, Forbid: "runs a shell command after each commit; run the command yourself between steps"},
				{Long: "reschedule-failed-exec"}, {Short: "r", Long: "rebase-merges", Arg: Text, Optional: true},
				{Long: "fork-point"}, {Long: "root"}, {Long: "reapply-cherry-picks"},
			}, gitStrategy, gitSign)},
		"cherry-pick": gitPick("cherry-pick", "copies commits onto the current branch", []Flag{
			{Short: "x"}, {Long: "ff"}, {Long: "allow-empty"}, {Long: "allow-empty-message"},
			{Long: "keep-redundant-commits"},
		}),
		"revert": gitPick("revert", "records commits that undo others", []Flag{{Long: "reference"}}),
		"clean": {what: "deletes untracked files", check: gitPathsOnly, spec: gitSpec("clean", "pathspecs, confined", false, []Flag{
			{Short: "q", Long: "quiet"}, {Short: "n", Long: "dry-run"}, {Short: "f", Long: "force"},
			{Short: "i", Long: "interactive", Forbid: gitInteractive}, {Short: "d"},
			{Short: "e", Long: "exclude", Arg: Text}, {Short: "x"}, {Short: "X"},
		})},
		"rm": {what: "removes files from the index and the working tree", check: gitPathsOnly,
			spec: gitSpec("rm", "pathspecs, confined", false, []Flag{
				{Short: "n", Long: "dry-run"}, {Short: "q", Long: "quiet"}, {Long: "cached"}, {Short: "f", Long: "force"},
				{Short: "r"}, {Long: "ignore-unmatch"}, {Long: "sparse"},
			}, gitPathFile)},
		"mv": {what: "moves or renames files", check: gitPathsOnly, spec: gitSpec("mv", "paths, confined", false, []Flag{
			{Short: "v", Long: "verbose"}, {Short: "n", Long: "dry-run"}, {Short: "f", Long: "force"},
			{Short: "k"}, {Long: "sparse"},
		})},
		"init": {what: "creates a repository", noInspect: true, check: gitInitCheck,
			spec: gitSpec("init", "[DIRECTORY], confined", false, []Flag{
				{Long: "template", Arg: Text, Forbid: gitNoTemplate}, {Long: "bare"},
				{Long: "shared", Arg: Text, Optional: true}, {Short: "q", Long: "quiet"},
				{Long: "separate-git-dir", Arg: WritePath}, {Short: "b", Long: "initial-branch", Arg: Text},
				{Long: "object-format", Arg: Text},
			})},
		"am": {what: "applies patches from a mailbox as commits", check: gitFileOperands,
			spec: gitSpec("am", "mailbox files to read, confined", false, []Flag{
				{Short: "i", Long: "interactive", Forbid: gitInteractive}, {Short: "3", Long: "3way"},
				{Short: "q", Long: "quiet"}, {Short: "s", Long: "signoff"}, {Short: "u", Long: "utf8"},
				{Short: "k", Long: "keep"}, {Long: "keep-non-patch"}, {Short: "m", Long: "message-id"},
				{Long: "keep-cr"}, {Short: "c", Long: "scissors"}, {Long: "quoted-cr", Arg: Text},
				{Long: "whitespace", Arg: Text}, {Long: "ignore-space-change"}, {Long: "ignore-whitespace"},
				{Long: "directory", Arg: Text}, {Long: "exclude", Arg: Text}, {Long: "include", Arg: Text},
				{Short: "C", Arg: Number}, {Short: "p", Arg: Number}, {Long: "patch-format", Arg: Text},
				{Long: "reject"}, {Long: "resolvemsg", Arg: Text}, {Long: "continue"}, {Short: "r", Long: "resolved"},
				{Long: "skip"}, {Long: "abort"}, {Long: "quit"}, {Long: "show-current-patch", Arg: Text, Optional: true},
				{Long: "allow-empty"}, {Long: "committer-date-is-author-date"}, {Long: "ignore-date"},
				{Long: "rerere-autoupdate"}, {Long: "empty", Arg: Text},
			}, gitSign)},
	}
}

// gitPick is cherry-pick or revert.
func gitPick(name, what string, own []Flag) *gitCmd {
	return &gitCmd{what: what, check: gitStrategyCheck, spec: gitSpec(name, "commits", false, own, []Flag{
		{Long: "quit"}, {Long: "continue"}, {Long: "abort"}, {Long: "skip"}, {Long: "cleanup", Arg: Text},
		{Short: "n", Long: "no-commit"}, {Short: "e", Long: "edit"}, {Short: "s", Long: "signoff"},
		{Short: "m", Long: "mainline", Arg: Number}, {Long: "rerere-autoupdate"},
		{Long: "strategy", Arg: Text}, {Short: "X", Long: "strategy-option", Arg: Text},
	}, gitSign)}
}

// gitNetworkCmds reach another repository: they ask.
func gitNetworkCmds() map[string]*gitCmd {
	return map[string]*gitCmd{
		"fetch": {what: "downloads objects and refs from another repository", check: gitFetchCheck,
			spec: gitSpec("fetch", "REPOSITORY (a remote name or URL; a local path is confined) then refspecs", false, []Flag{
				{Short: "m", Long: "multiple"}, {Short: "n"}, {Short: "j", Long: "jobs", Arg: Number},
				{Long: "prefetch"}, {Short: "u", Long: "update-head-ok"}, {Long: "negotiate-only"},
				{Long: "auto-maintenance"}, {Long: "auto-gc"}, {Long: "write-commit-graph"}, {Long: "stdin"},
			}, gitQuiet, gitFetchFlags)},
		"pull": {what: "fetches from another repository and merges or rebases", check: gitPullCheck,
			spec: gitSpec("pull", "REPOSITORY (a remote name or URL; a local path is confined) then refspecs", false, []Flag{
				{Short: "r", Long: "rebase", Arg: Text, Optional: true}, {Long: "signoff", Arg: Text, Optional: true},
				{Long: "edit"}, {Short: "j", Long: "jobs", Arg: Text, Optional: true},
			}, gitQuiet, gitMergeFlags, gitStrategy, gitSign, gitFetchFlags)},
		"push": {what: "sends commits and refs to another repository", check: gitPushCheck,
			spec: gitSpec("push", "REPOSITORY (a remote name or URL; a local path is confined) then refspecs", false, []Flag{
				{Long: "repo", Arg: Text}, {Long: "all"}, {Long: "mirror"}, {Short: "d", Long: "delete"},
				{Long: "tags"}, {Short: "n", Long: "dry-run"}, {Long: "porcelain"}, {Short: "f", Long: "force"},
				{Long: "force-with-lease", Arg: Text, Optional: true}, {Long: "force-if-includes"},
				{Long: "recurse-submodules", Arg: Text}, {Long: "thin"},
				{Long: "receive-pack", Arg: Text, Forbid: "runs this command in place of git-receive-pack (locally for local remotes)"},
				{Long: "exec", Arg: Text, Forbid: "runs this command in place of git-receive-pack (locally for local remotes)"},
				{Short: "u", Long: "set-upstream"}, {Long: "prune"}, {Long: "no-verify"}, {Long: "verify"},
				{Long: "follow-tags"}, {Long: "signed", Arg: Text, Optional: true}, {Long: "atomic"},
				{Short: "o", Long: "push-option", Arg: Text}, {Short: "4", Long: "ipv4"}, {Short: "6", Long: "ipv6"},
			}, gitQuiet)},
		"clone": {what: "copies another repository", noInspect: true, check: gitCloneCheck,
			spec: gitSpec("clone", "REPOSITORY (a URL; a local path is confined) [DIRECTORY], confined", false, []Flag{
				{Long: "reject-shallow"}, {Short: "n", Long: "no-checkout"}, {Long: "checkout"}, {Long: "bare"},
				{Long: "mirror"}, {Short: "l", Long: "local"}, {Long: "no-hardlinks"}, {Short: "s", Long: "shared"},
				{Long: "recurse-submodules", Arg: Text, Optional: true}, {Long: "recursive", Arg: Text, Optional: true},
				{Short: "j", Long: "jobs", Arg: Number},
				{Long: "template", Arg: Text, Forbid: gitNoTemplate},
				{Long: "reference", Arg: ReadPath}, {Long: "reference-if-able", Arg: ReadPath},
				{Long: "dissociate"}, {Short: "o", Long: "origin", Arg: Text}, {Short: "b", Long: "branch", Arg: Text},
				{Short: "u", Long: "upload-pack", Arg: Text, Forbid: "runs this command in place of git-upload-pack (locally for local and ext remotes)"},
				{Long: "depth", Arg: Number}, {Long: "shallow-since", Arg: Text}, {Long: "shallow-exclude", Arg: Text},
				{Long: "single-branch"}, {Long: "tags"}, {Long: "shallow-submodules"},
				{Long: "separate-git-dir", Arg: WritePath},
				{Short: "c", Long: "config", Arg: Text, Forbid: gitNoConfigFlag},
				{Long: "server-option", Arg: Text}, {Short: "4", Long: "ipv4"}, {Short: "6", Long: "ipv6"},
				{Long: "filter", Arg: Text}, {Long: "also-filter-submodules"}, {Long: "remote-submodules"},
				{Long: "sparse"}, {Long: "bundle-uri", Arg: Text},
			}, gitQuiet)},
		"ls-remote": {what: "lists the refs of another repository", check: gitRemoteOperands,
			spec: gitSpec("ls-remote", "REPOSITORY (a remote name or URL; a local path is confined) then ref patterns", false, []Flag{
				{Short: "q", Long: "quiet"}, {Short: "t", Long: "tags"}, {Short: "h", Long: "heads"}, {Long: "refs"},
				{Long: "get-url"}, {Long: "sort", Arg: Text}, {Long: "exit-code"}, {Long: "symref"},
				{Short: "o", Long: "server-option", Arg: Text},
				{Long: "upload-pack", Arg: Text, Forbid: "runs this command in place of git-upload-pack (locally for local and ext remotes)"},
				{Long: "exec", Arg: Text, Forbid: "runs this command in place of git-upload-pack (locally for local and ext remotes)"},
			})},
	}
}

// gitDispatcher is a subcommand with subcommands of its own, chosen by
// the first operand; def (if any) is the one git runs when there is no
// operand or, for git reflog (whose default subcommand takes a ref), when
// the first operand is none of them.
func gitDispatcher(name string, subs map[string]*gitCmd, def, doc string) *gitCmd {
	for sub, cmd := range subs {
		cmd.spec.Name = "git " + name + " " + sub
	}
	// The flags before the subcommand's name are the default one's
	// (git stash -q, git reflog --oneline, git remote -v).
	var flags []Flag
	number := false
	if d, ok := subs[def]; ok {
		flags, number = d.spec.Flags, d.spec.NumberShort
	}
	return &gitCmd{
		subs: subs,
		spec: &Spec{Name: "git " + name, Doc: doc, NoPermute: true, NumberShort: number, Flags: flags},
		check: func(g *gitCall, a *gitArgs) (gitClass, error) {
			if len(a.revs) > 0 {
				if cmd, ok := subs[a.revs[0]]; ok {
					return g.run(cmd, a.Operands[1:])
				}
			}
			cmd, ok := subs[def]
			if !ok || len(a.revs) > 0 && name != "reflog" {
				word := "nothing"
				if len(a.revs) > 0 {
					word = a.revs[0]
				}
				return 0, refuse(CodeUnknownSubcommand, "git "+name+" subcommands: "+gitNames(subs),
					"git %s needs a subcommand vtexec knows, got %s", name, word)
			}
			return g.run(cmd, a.raw)
		},
	}
}

// run checks args against one subcommand (or sub-subcommand) and returns
// what it does: its class, or more if its check found more (git branch
// NAME creates a branch).
func (g *gitCall) run(cmd *gitCmd, args []string) (gitClass, error) {
	a, err := gitParse(cmd, args)
	if err != nil {
		return 0, err
	}
	at := g.at()
	for _, u := range a.Flags {
		if err := at.checkValue(u); err != nil {
			return 0, err
		}
		if u.Flag.Long == "submodule" && u.Value != "short" {
			return 0, refuse(CodeForbiddenFlag, "leave --submodule out (or use --submodule=short); run git log inside the submodule instead",
				"git %s --submodule=%s reads (or, for diff, runs git in) each changed submodule's repository, which vtexec inspects only when it is checked out", g.sub, u.Value)
		}
		if u.Flag.Long == "recurse-submodules" && g.sub == "ls-files" {
			return 0, refuse(CodeForbiddenFlag, "run the command inside each checked-out submodule instead",
				"git %s --recurse-submodules reads submodule repositories, including ones only history knows, which vtexec does not inspect", g.sub)
		}
	}
	if cmd.what != "" {
		g.what = cmd.what
	}
	var class gitClass
	if cmd.check == nil {
		class, err = cmd.class, gitOperands(g, a)
	} else {
		class, err = cmd.check(g, a)
		if !cmd.checkDecides {
			class = max(class, cmd.class)
		}
	}
	if err != nil || class != gitWrite {
		return class, err
	}
	return class, gitWritablePaths(g, a)
}

// gitPathWrites are the writing subcommands whose operands are all paths.
var gitPathWrites = &lazy[map[string]bool]{make: func() map[string]bool {
	return map[string]bool{"add": true, "mv": true, "rm": true, "restore": true, "clean": true}
}}

// gitWritablePaths checks, for a subcommand that writes, the paths it
// writes as writes: pathspecs after "--", operands of subcommands that
// take only paths, and operands that name an existing file. A person's
// approval of git rm must not reach .git or .vtexec.
func gitWritablePaths(g *gitCall, a *gitArgs) error {
	paths := append([]string{}, a.paths...)
	ops := a.revs
	if !a.dashdash && len(a.revs) == 0 {
		ops = a.Operands
	}
	for _, op := range ops {
		if _, err := os.Lstat(filepath.Join(g.dir, op)); err == nil || gitPathWrites.get()[g.sub] {
			paths = append(paths, op)
		}
	}
	for _, spec := range paths {
		path, top := gitPathspecPath(spec)
		if path == "" {
			continue
		}
		base := g.dir
		if top {
			base = g.topLevel()
		}
		if !filepath.IsAbs(path) {
			path = base + "/" + path
		}
		if err := g.at().WritePath(path); err != nil {
			if f, ok := err.(*Finding); ok {
				f.Reason = strings.Replace(f.Reason, path, spec, 1)
			}
			return err
		}
	}
	return nil
}

func gitNames(subs map[string]*gitCmd) string {
	var names []string
	for n := range subs {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}
