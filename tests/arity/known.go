package main

import (
	"strings"

	"github.com/vtexec/vtexec/validators"
)

// knownDisagreements are disagreements the probe found that are not fixed
// in the specs, each with a note for the owner of validators/. A key is a
// spelling ("PROGRAM SUB... NAME", two spaces when there is no
// subcommand) or a prefix of spellings ending in "*". They are reported on
// every run; a disagreement not listed fails the run, and so does an entry
// that no longer matches one.
var knownDisagreements = map[string]string{
	"cp  --update": "coreutils 9.1 cp --update takes no value (--update=WHEN came in 9.3); cp refuses --update=X, so nothing runs",
	// The log-only options in gitRevFlags: rev-list and format-patch refuse
	// them, after a complaint about the words that follow.
	"git format-patch --decorate":              gitLogOnly,
	"git format-patch --decorate-refs":         gitLogOnly,
	"git format-patch --decorate-refs-exclude": gitLogOnly,
	"git format-patch -L":                      gitLogOnly,
	"git rev-list --decorate":                  gitLogOnly,
	"git rev-list --decorate-refs":             gitLogOnly,
	"git rev-list --decorate-refs-exclude":     gitLogOnly,
	"git rev-list -L":                          gitLogOnly,
	"git stash show *": "git stash show takes every word that does not start with '-' as the stash, so the values of the diff and " +
		"revision options it shares with git log must be attached (--stat-width=3); with the value in the next word git fails " +
		"(\"Too many revisions\"), and it refuses log-only options (--decorate, -L); vtexec runs them attached (validators.Canonical)",
}

const gitLogOnly = "an option of git log that this subcommand does not know: git refuses it, so nothing runs; gitRevFlags lists it for every subcommand of the revision parser"

// knownStolen are the git subcommands where the probe finds that git's
// first pass over the words takes git log's own options from the place of
// a value (see stolenReport).
var knownStolen = map[string]string{
	"log":         stolenNote,
	"show":        stolenNote,
	"whatchanged": stolenNote,
	"reflog":      stolenNote,
	"reflog show": stolenNote,
}

const stolenNote = "git reads the word as its own option and takes the word after it as the value, or fails (\"requires a value\"); " +
	"the spec reads the option word as the value and checks the word after it as an operand, which is stricter; " +
	"vtexec runs git with such values attached (--author=X, -n5: validators.Canonical), which git reads as the spec does"

// knownFor returns the entry covering a spelling and its note.
func knownFor(fa validators.FlagArity) (string, string) {
	k := key(fa)
	if note, ok := knownDisagreements[k]; ok {
		return k, note
	}
	for prefix, note := range knownDisagreements {
		if strings.HasSuffix(prefix, "*") && strings.HasPrefix(k, strings.TrimSuffix(prefix, "*")) {
			return prefix, note
		}
	}
	return "", ""
}
