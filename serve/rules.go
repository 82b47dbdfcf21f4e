package serve

import "github.com/vtexec/vtexec/internal/modelrules"

// Rules teaches a model vtexec's rules before its first call: what runs,
// what is refused and what to do instead.
const Rules = modelrules.Rules

// Tool descriptions.
const (
	shellDescription = "Run a shell command in the workspace and return its exit code, stdout, stderr and the working directory after it.\n\n" + Rules

	readDescription = "Read what a background command (started by shell with background: true) wrote to its terminal since the last read. " +
		"With wait_ms, wait up to that long for new output when there is none yet. Once the command ended, the answer has its exit code and result. " +
		"Unread output beyond 1 MiB is dropped, oldest first, and counted in dropped_bytes."

	writeDescription = "Type input into a background command's terminal, exactly as given (end a line with \\n). " +
		"Typing into a program that only reads data (cat, grep, sort …) needs nothing more; typing into anything else " +
		"(an interpreter, a shell, a program vtexec does not know) needs a person's approval of exactly that input, and fails with needs_approval where none can be asked."

	killDescription = "Stop a background command and every process it started, and return the rest of its output and its result."

	listDescription = "List this connection's background commands: id, command, cwd, whether each still runs, its exit code once ended, and how much output is unread."

	checkDescription = "Decide whether a shell command would be allowed, asked about or refused, without running it. " +
		"The answer has the decision, and for a refusal a code, a reason and a hint. Same rules as the shell tool:\n\n" + Rules
)
