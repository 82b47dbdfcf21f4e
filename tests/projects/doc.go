// Package projects runs agent sessions on fixture projects — Python,
// Node, Rust and Go — through vtexec and through bash, and measures the
// commands vtexec refuses or asks about for no good reason.
//
// Each ecosystem is a project under testdata/NAME/ and a session,
// testdata/NAME.session: the commands an agent types while it works on
// that project, in order, in the forms agents write them. The format:
//
//	# a comment; blank lines are ignored
//	$ ls -la
//	? ask: runs the project's tests, which are its code
//	$ .venv/bin/python -m pytest -q
//	$ cat > src/demo/util.py <<'EOF'
//	> def twice(x):
//	>     return 2 * x
//	> EOF
//
// "$ " starts a command; "> " (or a lone ">") continues it on the next
// line. "? ask: WHY" or "? deny: WHY" before a command says that vtexec
// is right to ask about it (a person answers "session") or to refuse it;
// every other command is expected to run without a person. "~ REGEX"
// before a command names lines of its output that change from one run
// to the next (a random temporary name, a checksum of one); they are
// left out of the comparison on both sides; "= unordered" says that it
// prints lines in an order that changes from run to run (rg searches
// files in parallel), so they are compared sorted.
//
// The test (go test -tags projects ./tests/projects, which needs the
// ecosystems' tools; .ci/run installs them) copies the project twice,
// drives vtexec serve --jsonl --ask in one copy as one session, answering
// "session" to every question, and runs each command with bash in the
// other, from the same directory. What vtexec runs must end as bash's
// run does — the same exit code, output and working directory, after
// the paths of the two copies and numbers that change from run to run
// are made alike — or carry the box's note (a box_denied warning). A
// command expected to be refused must be; a needless ask or refusal is
// counted, and more than 3% of a session fails the test.
package projects
