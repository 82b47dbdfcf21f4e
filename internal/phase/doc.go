// Package phase marks where a fresh vtexec process spends its time, for
// the speed bench (go run ./tests/bench -phases). Built with the
// vtexecphases tag, Mark notes the monotonic clock at each named point
// and Write appends the marks to the file VTEXEC_PHASES names; without
// the tag both do nothing and cost nothing.
package phase
