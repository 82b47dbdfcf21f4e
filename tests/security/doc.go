// Package security holds vtexec's end-to-end security regression suite: a
// table of commands with the decision and code each must get, run through
// the same Check every face uses, against a real workspace with hostile
// symlinks, a sibling directory and protected files.
package security
