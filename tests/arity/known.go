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
	"mypy  -m": mypyFromFile, "mypy  -p": mypyFromFile, "mypy  -c": mypyFromFile,
}

// mypyFromFile explains the probe's view of mypy's -m, -p and -c.
const mypyFromFile = "mypy reads a word that starts with @ as a file of more arguments, so the probe's separate @W is not a value; attached (-m@W) it is the value, as the spec says, and vtexec refuses every word that starts with @"

// knownStolen are the git subcommands where the probe finds that git's
// first pass over the words takes git log's own options from the place of
// a value (see stolenReport). None: vtexec passes every value of a git
// subcommand's option attached (validators.Canonical), where git's first
// pass reads it as the value.
var knownStolen = map[string]string{}

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
