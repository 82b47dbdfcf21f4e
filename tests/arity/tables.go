package main

import (
	"slices"

	"github.com/vtexec/vtexec/validators"
)

// prefix are the words the program's probe rig puts before the flag
// (cut's list, xargs's input file, rg's one thread and flake8's one job
// so that their output comes in one order), unless the flag stands for
// them.
func prefix(fa validators.FlagArity) []string {
	if slices.Contains(fa.Probe.Instead, fa.Name) {
		return nil
	}
	return fa.Probe.Before
}

// validValues are values a flag accepts, for flags that check their value
// before anything else is read ("PROG FLAG" + " " + "VALUE"). None is a
// revision or a path, so that read as an operand it still shows as one.
var validValues = map[string]string{
	"grep --binary-files": "text", "grep -D": "read", "grep --devices": "read",
	"file -e": "ascii", "file --exclude": "ascii",
	"gofmt -r":   "a -> a",
	"find -amin": "1", "find -atime": "1", "find -cmin": "1", "find -ctime": "1",
	"find -mmin": "1", "find -mtime": "1", "find -used": "1", "find -inum": "1", "find -links": "1",
	"find -gid": "0", "find -uid": "0", "find -group": "root", "find -user": "root",
	"find -maxdepth": "1", "find -mindepth": "1", "find -perm": "644", "find -regextype": "emacs",
	"find -size": "1", "find -type": "f", "find -xtype": "f",
	// git's revision and diff options.
	"git --no-walk": "sorted", "git --date": "short", "git --diff-merges": "off",
	"git --diff-algorithm": "myers", "git --color-moved-ws": "no", "git --ws-error-highlight": "none",
	"git --output-indicator-new": "+", "git --output-indicator-old": "-", "git --output-indicator-context": "_",
	"git --diff-filter": "M", "git --exclude-hidden": "fetch",
	"git --group": "author", "git --decorate": "short", "git --color": "never", "git --color-moved": "no",
	"git --word-diff": "plain", "git --submodule": "short", "git --ignore-submodules": "all",
	"git --stat": "80", "git --dirstat": "files", "git --dirstat-by-file": "10", "git --abbrev": "8",
	"git --encoding": "UTF-8", "git --pretty": "oneline", "git --format": "%H",
	"git --notes": "refs/notes/commits", "git --show-notes": "refs/notes/commits", "git --expand-tabs": "4",
	"git --ancestry-path": "HEAD", "git --show-linear-break": "x", "git --min-parents": "1", "git --max-parents": "1",
	"git --max-age": "1", "git --min-age": "1", "git --branches": "main", "git --tags": "v1", "git --remotes": "x",
	"git --glob": "refs/heads/*", "git --exclude": "x", "git --decorate-refs": "refs/tags", "git --decorate-refs-exclude": "refs/tags",
	"git --break-rewrites": "50", "git --find-renames": "50", "git --find-copies": "50",
	"git --disk-usage": "human", "git --filter": "blob:none", "git --missing": "print", "git --porcelain": "v1",
	"git --untracked-files": "no", "git --ignored": "no", "git --column": "never", "git --show-object-format": "storage",
	"git --abbrev-ref": "strict", "git --short": "8", "git --disambiguate": "abc", "git --path-format": "absolute",
	"git --since": "yesterday", "git --after": "yesterday", "git --until": "yesterday", "git --before": "yesterday",
	"git --unified": "3", "git --cover-from-description": "message",
	"git blame -L": "1,1", "git annotate -L": "1,1",
}

// skipReasons are the spellings not probed, each with its reason; keyed
// "PROGRAM SUB... NAME" (two spaces when there is no subcommand).
var skipReasons = map[string]string{
	"find  (":                           "an operator, not an option: find's parser pairs it with \")\"",
	"find  )":                           "an operator, not an option: find's parser pairs it with \"(\"",
	"find  !":                           "an operator, not an option: it negates the next primary",
	"find  ,":                           "an operator, not an option: it joins two expressions",
	"find  -help":                       "prints the usage and exits before reading further words",
	"find  --help":                      "prints the usage and exits before reading further words",
	"find  -version":                    "prints the version and exits before reading further words",
	"find  --version":                   "prints the version and exits before reading further words",
	"find  -exec":                       "takes every word up to \";\" or \"+\"; the validator refuses it, and with it the whole command",
	"find  -execdir":                    "takes every word up to \";\" or \"+\"; the validator refuses it, and with it the whole command",
	"find  -ok":                         "takes every word up to \";\"; the validator refuses it, and with it the whole command",
	"find  -okdir":                      "takes every word up to \";\"; the validator refuses it, and with it the whole command",
	"find  -context":                    "find refuses it while parsing unless SELinux is enabled, so no later word is read",
	"env  -S":                           envSplit,
	"env  --split-string":               envSplit,
	"git bisect start --term-new":       bisectStart,
	"git bisect start --term-bad":       bisectStart,
	"git bisect start --term-old":       bisectStart,
	"git bisect start --term-good":      bisectStart,
	"git bisect start --no-checkout":    bisectStart,
	"git bisect start --first-parent":   bisectStart,
	"git bisect terms --term-good":      bisectTerms,
	"git bisect terms --term-bad":       bisectTerms,
	"git rev-parse --sq-quote":          "prints every later word quoted, whatever it is",
	"git rev-parse --verify":            revParseOne,
	"git rev-parse --short":             revParseOne,
	"git rev-parse --revs-only":         "drops the words that are not revisions from its output without a complaint",
	"git rev-parse --flags":             "drops the words that are not options from its output without a complaint",
	"git rev-parse --parseopt":          "switches rev-parse to parsing an option specification read from standard input",
	"git reflog --ignore-missing":       ignoreMissing,
	"git reflog show --ignore-missing":  ignoreMissing,
	"git stash list --ignore-missing":   ignoreMissing,
	"git bisect terms --no-term-good":   bisectTerms,
	"git bisect terms --no-term-bad":    bisectTerms,
	"git stash store -q":                stashStore,
	"git stash store --quiet":           stashStore,
	"git stash store --no-quiet":        stashStore,
	"git stash store --no-message":      stashStore,
	"git rev-parse --path-format":       "rev-parse refuses --path-format without an attached value before it reads further words",
	"git diff --no-index":               "git diff --no-index wants exactly two paths and prints its usage for any other count without naming them",
	"git  --html-path":                  printsAndExits,
	"git  --man-path":                   printsAndExits,
	"git  --info-path":                  printsAndExits,
	"git  --exec-path":                  printsAndExits,
	"git  -v":                           printsAndExits,
	"git  --version":                    printsAndExits,
	"git  -h":                           gitHelp,
	"git  --help":                       gitHelp,
	"git log --ignore-missing":          ignoreMissing,
	"git show --ignore-missing":         ignoreMissing,
	"git whatchanged --ignore-missing":  ignoreMissing,
	"git shortlog --ignore-missing":     ignoreMissing,
	"git rev-list --ignore-missing":     ignoreMissing,
	"git format-patch --ignore-missing": ignoreMissing,
	"jq  -h":                            "prints the usage and exits before reading further words",
	"jq  --help":                        "prints the usage and exits before reading further words",
	"jq  -V":                            "prints the version and exits before reading further words",
	"jq  --version":                     "prints the version and exits before reading further words",
}

const envSplit = "env splits its value into words and reads them again as its own arguments, so env -S W and env -S -- W run the same command whether or not W is the value; the validator refuses it"

const (
	bisectStart   = "git bisect start reads words that are not revisions as pathspecs without a complaint, so nothing shows how the word after the flag was read"
	bisectTerms   = "git bisect terms refuses more than one word whatever the flag, before it reads them"
	revParseOne   = "makes rev-parse want exactly one revision, which it checks before reading the words as revisions"
	ignoreMissing = "makes git pass over revisions that do not exist, so the probe words leave no trace"
)

const (
	stashStore     = "git stash store fails without a word when its operands are wrong, so the probe words leave no trace"
	printsAndExits = "prints and exits before reading further words"
	gitHelp        = "stands for the help subcommand: the words after it are help's operands (a manual page to show), which vtexec checks as such"
)
