package main

// knownDisagreements are disagreements the probe found that are not yet
// fixed in the specs, each with a note for the owner of validators/. They
// are reported on every run; a new disagreement fails the run, and so
// does an entry here that no longer disagrees.
var knownDisagreements = map[string]string{}
