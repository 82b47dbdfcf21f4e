// Package validators is vtexec's allowlist: one validator per program,
// each knowing the program's flags, which operands are paths, and which
// flags run code or write files.
//
// A validator is data first. Most are a Spec: a table of flags with the kind
// of value each takes, the flags that are refused and why, and what the
// operands are. Code is added only where a program has a language of its
// own (a sed script, a find expression). Arguments are parsed the way the
// program's own getopt does, so the flags a validator sees are the flags the
// program will act on: an unknown flag is refused, never guessed, and so is
// an abbreviated long option.
package validators
