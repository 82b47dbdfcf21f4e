// Package execpolicy turns a command string into a checked plan.
//
// It parses with mvdan.cc/sh/v3/syntax (bash dialect), refuses every shell
// feature whose effect vtexec cannot see before running (substitutions,
// expansions of variables, control flow, background jobs, most redirects),
// expands the remaining words into literal argv lists with mvdan's expand
// package (quotes and escapes exactly as bash; globs only against the
// workspace), and asks the validators about each simple command. The plan
// it returns is exactly what the runner executes.
package execpolicy
