package validators

import "strings"

// Flag tables of git's subcommands, from `git SUBCOMMAND -h` and the
// manual pages of git 2.39. Options git parses with parse-options also
// accept --no-NAME; gitSpec adds those. A Text flag marked Optional takes
// its value only when attached (--stat=100, -M50%), as git does.

// gitDiffFlags are the diff options: git diff, log -p, show, stash show,
// diff-tree, format-patch, range-diff.
var gitDiffFlags = []Flag{
	{Short: "p", Long: "patch"}, {Short: "u"}, {Short: "s", Long: "no-patch"},
	{Short: "U", Arg: Text, Optional: true}, {Long: "unified", Arg: Text, Optional: true},
	{Long: "output", Arg: Text, Forbid: gitWritesFile},
	{Long: "output-indicator-new", Arg: Text}, {Long: "output-indicator-old", Arg: Text},
	{Long: "output-indicator-context", Arg: Text},
	{Long: "raw"}, {Long: "patch-with-raw"}, {Long: "patch-with-stat"},
	{Long: "indent-heuristic"}, {Long: "minimal"}, {Long: "patience"}, {Long: "histogram"},
	{Long: "anchored", Arg: Text}, {Long: "diff-algorithm", Arg: Text},
	{Long: "stat", Arg: Text, Optional: true}, {Long: "stat-width", Arg: Number},
	{Long: "stat-name-width", Arg: Number}, {Long: "stat-count", Arg: Number},
	{Long: "stat-graph-width", Arg: Number},
	{Long: "compact-summary"}, {Long: "numstat"}, {Long: "shortstat"}, {Long: "summary"},
	{Short: "X", Long: "dirstat", Arg: Text, Optional: true}, {Long: "cumulative"},
	{Long: "dirstat-by-file", Arg: Text, Optional: true},
	{Short: "z"}, {Long: "name-only"}, {Long: "name-status"},
	{Long: "submodule", Arg: Text, Optional: true},
	{Long: "color", Arg: Text, Optional: true}, {Long: "color-moved", Arg: Text, Optional: true},
	{Long: "color-moved-ws", Arg: Text},
	{Long: "word-diff", Arg: Text, Optional: true}, {Long: "word-diff-regex", Arg: Text},
	{Long: "color-words", Arg: Text, Optional: true},
	{Long: "renames"}, {Long: "rename-empty"}, {Long: "check"}, {Long: "ws-error-highlight", Arg: Text},
	{Long: "full-index"}, {Long: "binary"}, {Long: "abbrev", Arg: Text, Optional: true},
	{Short: "B", Long: "break-rewrites", Arg: Text, Optional: true},
	{Short: "M", Long: "find-renames", Arg: Text, Optional: true},
	{Short: "C", Long: "find-copies", Arg: Text, Optional: true},
	{Long: "find-copies-harder"}, {Short: "D", Long: "irreversible-delete"},
	{Short: "l", Arg: Number},
	{Long: "diff-filter", Arg: Text}, {Short: "S", Arg: Text}, {Short: "G", Arg: Text},
	{Long: "find-object", Arg: Text}, {Long: "pickaxe-all"}, {Long: "pickaxe-regex"},
	{Short: "O", Arg: ReadPath}, {Long: "skip-to", Arg: Text}, {Long: "rotate-to", Arg: Text},
	{Short: "R"}, {Long: "relative", Arg: Text, Optional: true}, {Short: "a", Long: "text"},
	{Long: "ignore-cr-at-eol"}, {Long: "ignore-space-at-eol"},
	{Short: "b", Long: "ignore-space-change"}, {Short: "w", Long: "ignore-all-space"},
	{Long: "ignore-blank-lines"}, {Short: "I", Long: "ignore-matching-lines", Arg: Text},
	{Long: "inter-hunk-context", Arg: Number}, {Short: "W", Long: "function-context"},
	{Long: "exit-code"}, {Long: "quiet"},
	{Long: "ext-diff", Forbid: "runs the external diff program of the configuration (diff.external, GIT_EXTERNAL_DIFF)"},
	{Long: "no-ext-diff"},
	{Long: "textconv", Forbid: "runs the textconv programs of the configuration; drop it (git shows the raw content)"},
	{Long: "no-textconv"},
	{Long: "ignore-submodules", Arg: Text, Optional: true},
	{Long: "src-prefix", Arg: Text}, {Long: "dst-prefix", Arg: Text}, {Long: "no-prefix"},
	{Long: "line-prefix", Arg: Text},
	{Long: "ita-invisible-in-index"}, {Long: "ita-visible-in-index"},
}

// gitRevFlags are the revision walking and commit formatting options of
// git log, show, rev-list, shortlog and whatchanged.
var gitRevFlags = []Flag{
	// Limiting.
	{Short: "n", Long: "max-count", Arg: Number}, {Long: "skip", Arg: Number},
	{Long: "since", Arg: Text}, {Long: "after", Arg: Text}, {Long: "until", Arg: Text},
	{Long: "before", Arg: Text}, {Long: "since-as-filter", Arg: Text},
	{Long: "max-age", Arg: Text}, {Long: "min-age", Arg: Text},
	{Long: "author", Arg: Text}, {Long: "committer", Arg: Text},
	{Long: "grep", Arg: Text}, {Long: "grep-reflog", Arg: Text},
	{Long: "all-match"}, {Long: "invert-grep"}, {Short: "i", Long: "regexp-ignore-case"},
	{Long: "basic-regexp"}, {Short: "E", Long: "extended-regexp"},
	{Short: "F", Long: "fixed-strings"}, {Short: "P", Long: "perl-regexp"},
	{Long: "remove-empty"}, {Long: "merges"}, {Long: "min-parents", Arg: Text, Optional: true},
	{Long: "max-parents", Arg: Text, Optional: true},
	{Long: "first-parent"}, {Long: "exclude-first-parent-only"},
	{Long: "not"}, {Long: "all"}, {Long: "branches", Arg: Text, Optional: true},
	{Long: "tags", Arg: Text, Optional: true}, {Long: "remotes", Arg: Text, Optional: true},
	{Long: "glob", Arg: Text}, {Long: "exclude", Arg: Text},
	{Long: "exclude-hidden", Arg: Text},
	{Long: "reflog"}, {Long: "alternate-refs"}, {Long: "single-worktree"}, {Long: "ignore-missing"},
	{Long: "bisect"}, {Long: "stdin"}, {Long: "cherry-mark"}, {Long: "cherry-pick"},
	{Long: "left-only"}, {Long: "right-only"}, {Long: "cherry"},
	{Short: "g", Long: "walk-reflogs"}, {Long: "merge"}, {Long: "boundary"},
	// History simplification and ordering.
	{Long: "simplify-by-decoration"}, {Long: "show-pulls"}, {Long: "full-history"},
	{Long: "dense"}, {Long: "sparse"}, {Long: "simplify-merges"},
	{Long: "ancestry-path", Arg: Text, Optional: true},
	{Long: "topo-order"}, {Long: "date-order"}, {Long: "author-date-order"}, {Long: "reverse"},
	{Long: "no-walk", Arg: Text, Optional: true}, {Long: "do-walk"},
	// Formatting.
	{Long: "pretty", Arg: Text, Optional: true}, {Long: "format", Arg: Text, Optional: true},
	{Long: "oneline"}, {Long: "abbrev-commit"}, {Long: "encoding", Arg: Text},
	{Long: "expand-tabs", Arg: Text, Optional: true},
	{Long: "notes", Arg: Text, Optional: true}, {Long: "show-notes", Arg: Text, Optional: true},
	{Long: "standard-notes"}, {Long: "show-signature"}, {Long: "relative-date"},
	{Long: "date", Arg: Text}, {Long: "parents"}, {Long: "children"}, {Long: "left-right"},
	{Long: "graph"}, {Long: "show-linear-break", Arg: Text, Optional: true},
	{Long: "decorate", Arg: Text, Optional: true}, {Long: "decorate-refs", Arg: Text},
	{Long: "decorate-refs-exclude", Arg: Text}, {Long: "clear-decorations"},
	{Long: "source"}, {Long: "use-mailmap"}, {Long: "mailmap"}, {Long: "log-size"},
	{Short: "L", Arg: Text}, {Long: "follow"}, {Long: "full-diff"},
	// Diffs of merges.
	{Long: "diff-merges", Arg: Text}, {Long: "remerge-diff"},
	{Short: "m"}, {Short: "c"}, {Long: "cc"}, {Long: "dd"}, {Long: "combined-all-paths"},
	{Short: "t"}, {Long: "root"},
}

// gitLogOnly are options of gitRevFlags that only git log and its kin
// know: rev-list, format-patch and stash show refuse them.
var gitLogOnly = map[string]bool{"decorate": true, "decorate-refs": true, "decorate-refs-exclude": true, "L": true}

// gitRevFlagsNotLog is gitRevFlags without gitLogOnly.
func gitRevFlagsNotLog() []Flag {
	var out []Flag
	for _, f := range gitRevFlags {
		if !gitLogOnly[f.Long] && !gitLogOnly[f.Short] {
			out = append(out, f)
		}
	}
	return out
}

// gitSpec builds a subcommand's Spec: the flags (the first definition of
// a name wins, so a subcommand's own flags come first), --no-NAME for
// every long flag, and --help left out (checkGit refuses it).
func gitSpec(name, doc string, number bool, groups ...[]Flag) *Spec {
	n := 0
	for _, group := range groups {
		n += len(group)
	}
	// Sized once: the largest tables (log's, diff's) hold hundreds.
	flags := make([]Flag, 0, 2*n)
	seenShort, seenLong := make(map[string]bool, n), make(map[string]bool, 2*n)
	add := func(f Flag) {
		if f.Short != "" && seenShort[f.Short] {
			f.Short = ""
		}
		if f.Long != "" && seenLong[f.Long] {
			f.Long = ""
		}
		if f.Short == "" && f.Long == "" {
			return
		}
		seenShort[f.Short], seenLong[f.Long] = true, true
		flags = append(flags, f)
	}
	for _, group := range groups {
		for _, f := range group {
			add(f)
		}
	}
	for _, f := range flags {
		if f.Long != "" && !strings.HasPrefix(f.Long, "no-") && !seenLong["no-"+f.Long] {
			seenLong["no-"+f.Long] = true
			flags = append(flags, Flag{Long: "no-" + f.Long})
		}
	}
	return &Spec{Name: "git " + name, Doc: doc, NumberShort: number, Flags: flags}
}

// Flags shared by several subcommands.
var (
	gitQuiet    = []Flag{{Short: "q", Long: "quiet"}, {Short: "v", Long: "verbose"}, {Long: "progress"}}
	gitPathFile = []Flag{{Long: "pathspec-from-file", Arg: ReadPath}, {Long: "pathspec-file-nul"}}
	gitSign     = []Flag{{Short: "S", Long: "gpg-sign", Arg: Text, Optional: true}}
	gitStrategy = []Flag{{Short: "s", Long: "strategy", Arg: Text}, {Short: "X", Long: "strategy-option", Arg: Text}}
	gitListing  = []Flag{
		{Long: "contains", Arg: Text}, {Long: "no-contains", Arg: Text},
		{Long: "merged", Arg: Text}, {Long: "no-merged", Arg: Text}, {Long: "points-at", Arg: Text},
		{Long: "sort", Arg: Text}, {Long: "format", Arg: Text}, {Long: "color", Arg: Text, Optional: true},
		{Long: "column", Arg: Text, Optional: true}, {Short: "i", Long: "ignore-case"},
	}
	gitFetchFlags = []Flag{
		{Long: "all"}, {Short: "a", Long: "append"}, {Long: "atomic"}, {Short: "f", Long: "force"},
		{Short: "t", Long: "tags"}, {Short: "p", Long: "prune"}, {Short: "P", Long: "prune-tags"},
		{Long: "recurse-submodules", Arg: Text, Optional: true}, {Long: "dry-run"},
		{Long: "write-fetch-head"}, {Short: "k", Long: "keep"}, {Long: "depth", Arg: Number},
		{Long: "shallow-since", Arg: Text}, {Long: "shallow-exclude", Arg: Text},
		{Long: "deepen", Arg: Number}, {Long: "unshallow"}, {Long: "refetch"}, {Long: "update-shallow"},
		{Long: "refmap", Arg: Text}, {Short: "o", Long: "server-option", Arg: Text},
		{Short: "4", Long: "ipv4"}, {Short: "6", Long: "ipv6"}, {Long: "negotiation-tip", Arg: Text},
		{Long: "filter", Arg: Text}, {Long: "show-forced-updates"}, {Long: "set-upstream"},
		{Long: "upload-pack", Arg: Text, Forbid: "runs this command in place of git-upload-pack (locally for local and ext remotes)"},
	}
	gitMergeFlags = []Flag{
		{Short: "n"}, {Long: "stat"}, {Long: "summary"}, {Long: "log", Arg: Text, Optional: true},
		{Long: "squash"}, {Long: "commit"}, {Short: "e", Long: "edit"}, {Long: "cleanup", Arg: Text},
		{Long: "ff"}, {Long: "ff-only"}, {Long: "rerere-autoupdate"}, {Long: "verify-signatures"},
		{Long: "autostash"}, {Long: "allow-unrelated-histories"}, {Long: "signoff"},
		{Long: "verify"}, {Long: "overwrite-ignore"},
	}
)
