// Package modelrules is vtexec's rules as a model is told them: the
// MCP server's tool descriptions and vtexec describe share them.
package modelrules

// Rules teaches a model vtexec's rules before its first call: what runs,
// what is refused and what to do instead. Every face that describes a
// shell tool to a model can reuse it.
const Rules = `Commands run without a shell, inside the workspace; anything vtexec cannot check is refused before it runs.

Works: one command, or several joined with && ; || and pipes |. Redirects to files inside the workspace: > file, >> file, 2> file, 2>&1, &> file, < file. Quotes, globs (*.go) and braces ({a,b}) work as in bash. A whole bash -c 'SCRIPT' is checked and run as SCRIPT. Also: here-documents (cat > notes.md <<'EOF' ... EOF, and <<< 'text'); for NAME in WORDS; do ...; done (alone, after cd, or as one part of an && / || list); ( ... ) as a command or one part of such a list, a cd inside holding only there, and { ...; } the same way (a cd inside holds after it); output redirects on a loop or group ({ ...; } > out.txt 2>&1); if COND; then ...; elif ...; else ...; fi; groups and ifs inside one another or a loop's body; test, [ ... ] and [[ ... ]] with one test; ! before a command or pipeline; : and exit N; command -v NAME and type NAME; $PWD; and settings as prefixes (LC_ALL=C sort, TZ=UTC date, NO_COLOR=1, COLUMNS=120, CI=1, NODE_ENV=test, PYTHONPATH=src, PYTHONDONTWRITEBYTECODE=1).

Words known only when the command runs also work: $(...), backticks, <(...), $?, variables and ${...}, arithmetic, while read loops, case. Each command inside is checked as it is reached, with its final words, and the first one refused stops the command there: the result says which and what ran before it.

Refused, and what to do instead:
- A program whose name is computed ($(echo rm) x, $CMD args), eval, source, exec, trap, alias, functions, export and declare -x, >(...), printf -v: write the commands and their names out.
- Assignments that reach programs (export A=1): pass values as arguments, or as A=1 cmd where the setting is allowed.
- Background jobs (&): for a server, a watcher or tail -f, call shell with background: true instead; it answers at once with a job id. Read its output with shell_read, type into it with shell_write, stop it with shell_kill; shell_list lists them. Without background, every command ends at its timeout.
- A here-document with an unquoted delimiter may not expand anything but $PWD: quote the delimiter (<<'EOF') to write text as it is.
- Paths outside the workspace (/etc/passwd, ../x, ~/x): use paths inside it.
- Network tools, shells run as programs, privilege tools (curl, ssh, sh, sudo): not available.

Write a file with a here-document (cat > notes.md <<'EOF', the lines, then EOF) or a redirect: printf '%s\n' 'first line' 'second line' > notes.txt (>> appends). sed -i edits in place.

cd persists: after cd src (alone or as in cd src && ls) later calls on this connection start in src; other connections are not affected. Each result tells the cwd.

Some commands (rm, programs not on the allowlist, git commands that rewrite history) need a person's approval; when none can be given the call fails with code needs_approval. An approval covers the command as shown: the same script, target, tool or package and the same flags (reporting flags like --silent or -q aside), and for npm and make scripts only while the script is unchanged; anything else asks again. Commands run without the network; an installer (npm install, pip install, go mod download) gets it only when the person answers network, and one that failed without it says so (ran_without_network). Every refusal has a code, a reason and a hint: follow the hint instead of retrying the same command.

A session that keeps trying what is refused for safety (paths outside the workspace, protected names, forbidden programs or flags) is escalated after 3 such refusals: from then on every command in it needs a person (code session_escalated) until a person resets it.`
