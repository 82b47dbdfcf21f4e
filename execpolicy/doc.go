// Package execpolicy turns a command string into a checked plan.
//
// It parses with mvdan.cc/sh/v3/syntax (bash dialect) and refuses every
// shell feature whose effect vtexec cannot see before running: command
// and process substitution (but the forms it knows the value of: $(pwd)
// and a quoted here-document's text), variable and arithmetic expansion
// (but $PWD and a loop's variable), background jobs, most redirects,
// while/case/select and functions. What agents type and vtexec can check
// statically runs as bash would: lists and pipelines, ( ) and { } groups,
// if/elif/else, for NAME in WORDS loops (unrolled), ! before a pipeline,
// test and one-test [[ ]], here-documents and here-strings, checked
// output settings as prefixes. The remaining words become literal argv
// lists with mvdan's expand package (quotes and escapes exactly as bash;
// globs only against the workspace), the validators judge each simple
// command, and policy rules and approvals decide each part. The plan it
// returns is exactly what the runner executes.
package execpolicy
