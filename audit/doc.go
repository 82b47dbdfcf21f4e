// Package audit keeps an append-only JSON-lines record of what vtexec
// decided and what it ran, so that a person can later answer "what did the
// agent do, and which rule or approval let it?" without trusting the agent's
// own transcript. Each decision and each execution becomes exactly one line
// (a Record), written with a single write(2) on an O_APPEND descriptor under
// an exclusive flock, so lines from concurrent goroutines and concurrent
// vtexec processes never interleave or tear, even on file systems where
// O_APPEND alone is not atomic. Records carry commands, argv, rules and
// outcomes but deliberately have no field for environment variables or
// command output: those routinely hold secrets, and an audit log that leaked
// them would be worse than none.
package audit
