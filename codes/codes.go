// Package codes is the one list of the codes vtexec's answers carry: a
// refusal's or a question's code, a warning beside a result, the reason
// a run stopped, vtexec's own failure. Each has its meaning, where it
// appears, and whether it is a security code — a refusal that signals
// probing (a path outside, a protected name, a forbidden program or
// flag) rather than a form vtexec does not run. Every layer answers with
// its constants (a test fails on a code spelled as a literal elsewhere),
// and SECURITY.md's table is generated from it (see Markdown).
package codes

import "strings"

// Code is a stable, machine-readable name of an outcome.
type Code string

// Kind is where a code appears.
type Kind string

const (
	Refusal Kind = "refusal" // decision deny, or a request refused
	Ask     Kind = "ask"     // decision ask: a person must approve
	Warning Kind = "warning" // in warnings, beside a result
	Stop    Kind = "stop"    // in stopped: a later step did not run
	Error   Kind = "error"   // {"error": …} with --json: vtexec's own failure
)

// Entry describes codes that share a meaning.
type Entry struct {
	Codes    []Code
	Kind     Kind
	Security bool
	Meaning  string // Markdown
}

// All lists every code, in the order SECURITY.md's table shows them.
func All() []Entry { return entries }

// Lookup returns the entry of code.
func Lookup(code string) (Entry, bool) {
	for _, e := range entries {
		for _, c := range e.Codes {
			if string(c) == code {
				return e, true
			}
		}
	}
	return Entry{}, false
}

// IsSecurity reports whether code signals probing.
func IsSecurity(code string) bool {
	e, ok := Lookup(code)
	return ok && e.Security
}

// Markdown renders the table of SECURITY.md's "Codes" section.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| code | meaning |\n| --- | --- |\n")
	for _, e := range entries {
		names := make([]string, len(e.Codes))
		for i, c := range e.Codes {
			names[i] = "`" + string(c) + "`"
		}
		meaning := e.Meaning
		if e.Security {
			meaning += " (a security code)"
		}
		b.WriteString("| " + strings.Join(names, ", ") + " | " + meaning + " |\n")
	}
	return b.String()
}

// The codes, as the answers spell them.
const (
	ParseError             = "parse_error"
	TooLong                = "too_long"
	Substitution           = "substitution"
	Expansion              = "expansion"
	Subshell               = "subshell"
	ControlFlow            = "control_flow"
	Assignment             = "assignment"
	Background             = "background"
	Redirect               = "redirect"
	NotAllowed             = "not_allowed"
	ForbiddenProgram       = "forbidden_program"
	UnknownFlag            = "unknown_flag"
	ShellBuiltin           = "shell_builtin"
	ForbiddenFlag          = "forbidden_flag"
	BadUsage               = "bad_usage"
	OutsideWorkspace       = "outside_workspace"
	ProtectedPath          = "protected_path"
	GitWrites              = "git_writes"
	GitNetwork             = "git_network"
	GitUnsafeConfig        = "git_unsafe_config"
	GitConfigWrite         = "git_config_write"
	UnknownSubcommand      = "unknown_subcommand"
	GitLfs                 = "git_lfs"
	Destructive            = "destructive"
	BadPath                = "bad_path"
	CheckLimit             = "check_limit"
	CheckFailed            = "check_failed"
	BadRequest             = "bad_request"
	Usage                  = "usage"
	InternalError          = "internal_error"
	ServerMissing          = "server_missing"
	ServerMismatch         = "server_mismatch"
	SessionEscalated       = "session_escalated"
	BoxDenied              = "box_denied"
	RanWithoutNetwork      = "ran_without_network"
	SessionReset           = "session_reset"
	NeedsApproval          = "needs_approval"
	NeedsVtexec            = "needs_vtexec"
	UnknownTool            = "unknown_tool"
	UncheckedTool          = "unchecked_tool"
	NoWorkspace            = "no_workspace"
	DeniedByUser           = "denied_by_user"
	Cancelled              = "cancelled"
	TooManyJobs            = "too_many_jobs"
	NoSuchJob              = "no_such_job"
	JobEnded               = "job_ended"
	TerminalUnavailable    = "terminal_unavailable"
	WriteFailed            = "write_failed"
	Denied                 = "denied"
	InlineCode             = "inline_code"
	AgentConfig            = "agent_config"
	WorkspaceProgram       = "workspace_program"
	UnseenArguments        = "unseen_arguments"
	PolicyDeny             = "policy_deny"
	PolicyAsk              = "policy_ask"
	BadPolicy              = "bad_policy"
	BadState               = "bad_state"
	SessionNotSaved        = "session_not_saved"
	AuditFailed            = "audit_failed"
	RunIncomplete          = "run_incomplete"
	OutputIncomplete       = "output_incomplete"
	OutOfMemory            = "out_of_memory"
	DiskFull               = "disk_full"
	StateUnwritable        = "state_unwritable"
	ApprovalIdFailed       = "approval_id_failed"
	Disarmed               = "disarmed"
	ChangedSinceCheck      = "changed_since_check"
	CwdNotReached          = "cwd_not_reached"
	RunTimeCheck           = "run_time_check"
	CommandLimit           = "command_limit"
	LoopLimit              = "loop_limit"
	SubstitutionLimit      = "substitution_limit"
	WordLimit              = "word_limit"
	NetworkUnavailable     = "network_unavailable"
	ConfinementUnavailable = "confinement_unavailable"
)

var entries = []Entry{
	{Codes: []Code{ParseError}, Kind: Refusal, Security: false, Meaning: "the string does not parse as bash, or is empty"},
	{Codes: []Code{TooLong}, Kind: Refusal, Security: false, Meaning: "the command string is over 64 KiB, a pipeline has more than 32 commands, or a request more than 64"},
	{Codes: []Code{Substitution}, Kind: Refusal, Security: false, Meaning: "a program whose name is computed (`$(…) ARGS`), `<(…)`, `>(…)`, or `$(…)` in a request the interpreter does not run (one with a function, a background job, `export`, `time`, `select`)"},
	{Codes: []Code{Expansion}, Kind: Refusal, Security: false, Meaning: "braces or globs expanding past the limits, or `$VAR`, `${…}`, `$((…))` in a request the interpreter does not run"},
	{Codes: []Code{Subshell}, Kind: Refusal, Security: false, Meaning: "`( … )` or `{ …; }` other than as a statement or one part of an `&&`/`||` list, or commands grouped in a way vtexec does not run"},
	{Codes: []Code{ControlFlow}, Kind: Refusal, Security: false, Meaning: "`if` or `for` other than as a statement or one part of an `&&`/`||` list, a loop inside a loop, a `cd` inside an `if`, loops other than `for NAME in WORDS`, `case`, `select`, `[[ ]]` beyond one test, functions, `!` but before a pipeline, `time` with redirects"},
	{Codes: []Code{Assignment}, Kind: Refusal, Security: false, Meaning: "`NAME=value`, `export`, `declare`, `local`, `readonly`"},
	{Codes: []Code{Background}, Kind: Refusal, Security: false, Meaning: "`&`, `coproc`"},
	{Codes: []Code{Redirect}, Kind: Refusal, Security: false, Meaning: "a redirect outside the allowed set"},
	{Codes: []Code{NotAllowed}, Kind: Refusal, Security: false, Meaning: "a program not on the allowlist (decision `ask`), or one that is not the trusted program (a path into the workspace, a look-alike, missing)"},
	{Codes: []Code{ForbiddenProgram}, Kind: Refusal, Security: true, Meaning: "vtexec itself (`vtexec` or `vtexec-serve`), under any name or path; shells (except a whole `bash -c SCRIPT`), privilege tools, programs that run a program given in their arguments (`ionice`, `setsid`, `watch`, …); a version in the name (`bash5.2`, `python3.11`) does not change what a program is"},
	{Codes: []Code{UnknownFlag}, Kind: Refusal, Security: false, Meaning: "a flag the validator does not know, or an abbreviated long option"},
	{Codes: []Code{ShellBuiltin}, Kind: Refusal, Security: false, Meaning: "a shell builtin (`export`, `source`, `set`, `alias` …): vtexec runs programs, with no shell state to change"},
	{Codes: []Code{ForbiddenFlag}, Kind: Refusal, Security: true, Meaning: "a flag that runs code, writes files, reads file lists or follows symlinks"},
	{Codes: []Code{BadUsage}, Kind: Refusal, Security: false, Meaning: "wrong arguments for a program (missing value, not a number, `cd` without one directory)"},
	{Codes: []Code{OutsideWorkspace}, Kind: Refusal, Security: true, Meaning: "a path that resolves outside the workspace"},
	{Codes: []Code{ProtectedPath}, Kind: Refusal, Security: true, Meaning: "a write to `.git` internals or `.vtexec/`"},
	{Codes: []Code{GitWrites, GitNetwork}, Kind: Ask, Security: false, Meaning: "(ask) a git subcommand that changes the repository or the working tree, or reaches another repository"},
	{Codes: []Code{GitUnsafeConfig}, Kind: Refusal, Security: true, Meaning: "the repository's configuration names a program git would run, or `git config` would set such a key"},
	{Codes: []Code{GitConfigWrite}, Kind: Refusal, Security: false, Meaning: "a git command that writes git's configuration (`git config NAME VALUE`, `remote add/set-url/remove`, `branch -u/--track/-m/-c`, `checkout/switch --track`, `push/fetch/pull --set-upstream`) or `.git/worktrees` and `.git/modules` (`worktree add`, `submodule init/update/add`): every box keeps those read-only, so it is refused rather than asked; the person runs it outside vtexec. `git branch -d` and `checkout -b` from a remote branch still run: git warns that it could not update the branch's section"},
	{Codes: []Code{UnknownSubcommand}, Kind: Refusal, Security: false, Meaning: "a subcommand vtexec does not know (git, go, npm …): refused, never guessed"},
	{Codes: []Code{GitLfs}, Kind: Ask, Security: false, Meaning: "(ask) the repository's configuration runs git-lfs, a filter program"},
	{Codes: []Code{Destructive}, Kind: Ask, Security: false, Meaning: "(ask) a removal a person must approve (`rm`, `find -delete`): the question lists what goes, once or for a session, never always"},
	{Codes: []Code{BadPath}, Kind: Refusal, Security: true, Meaning: "an empty path, a NUL byte, over 4096 bytes, a symlink loop, `..` after a missing directory"},
	{Codes: []Code{CheckLimit}, Kind: Refusal, Security: false, Meaning: "the check of the request would read more than 1,000,000 directory entries (the walks below directories a command writes or follows links in, and the globs, of every operand and command together), or took longer than its deadline: half the request's timeout, at most 10 s"},
	{Codes: []Code{CheckFailed}, Kind: Refusal, Security: false, Meaning: "vtexec failed while checking or deciding the command (a fault of vtexec's own, reported on its standard error with where it happened): the command is refused, never run, and the stream or server goes on"},
	{Codes: []Code{BadRequest}, Kind: Refusal, Security: false, Meaning: "a request vtexec cannot act on (malformed JSON line, missing workspace, cwd outside)"},
	{Codes: []Code{ServerMissing}, Kind: Error, Security: false, Meaning: "`vtexec serve` found no `vtexec-serve` beside vtexec: the server is that program, installed with vtexec"},
	{Codes: []Code{ServerMismatch}, Kind: Error, Security: false, Meaning: "the `vtexec-serve` beside vtexec is of another build (version or commit) than vtexec: one program was updated without the other; `vtexec serve` does not start it"},
	{Codes: []Code{Usage, InternalError}, Kind: Error, Security: false, Meaning: "(in `{\"error\": …}` with `--json`) vtexec was called wrongly, or failed itself"},
	{Codes: []Code{SessionEscalated}, Kind: Ask, Security: false, Meaning: "the session had `escalate_after` (default 3) refusals with security codes, so vtexec allows nothing in it on its own: every command needs a person until one resets the session (`vtexec session reset ID`, or a \"session\" answer to this question); where no person can be asked, the command is refused with this code; also a warning on the refusal that escalated the session, and an audit record (kind `session`)"},
	{Codes: []Code{BoxDenied}, Kind: Warning, Security: false, Meaning: "a command failed and its error output names something the kernel box denied (a write outside the workspace, its own HOME and TMPDIR and the read-write roots; a protected name; a connection without the network): what, why, and how a person grants it"},
	{Codes: []Code{RanWithoutNetwork}, Kind: Warning, Security: false, Meaning: "a command that fetches from the network (an installer, a fetcher) ran without it and failed: vtexec gives the network only to a command a person granted it (the answer `network`, or `vtexec policy allow --network`)"},
	{Codes: []Code{SessionReset}, Kind: Warning, Security: false, Meaning: "(audit log, kind `session`) a person reset an escalated session"},
	{Codes: []Code{NeedsApproval}, Kind: Refusal, Security: false, Meaning: "the command needs a person's approval and none can be asked"},
	{Codes: []Code{NeedsVtexec}, Kind: Refusal, Security: false, Meaning: "(`vtexec hook --no-rewrite`) vtexec allows the command only when it runs it itself"},
	{Codes: []Code{UnknownTool}, Kind: Refusal, Security: false, Meaning: "(`vtexec hook`) the harness sent a tool the hook does not know by name"},
	{Codes: []Code{UncheckedTool}, Kind: Refusal, Security: false, Meaning: "(`vtexec hook`) the tool runs what vtexec cannot check (Claude Code's `EnterWorktree`)"},
	{Codes: []Code{NoWorkspace}, Kind: Refusal, Security: false, Meaning: "(`vtexec hook`) nothing the person set names the workspace: no pinned `--workspace`, no project variable from the harness, no working directory from Codex"},
	{Codes: []Code{DeniedByUser}, Kind: Refusal, Security: false, Meaning: "a person answered deny (or gave no answer in time, or answered a question other than the one the command asks)"},
	{Codes: []Code{Cancelled}, Kind: Refusal, Security: false, Meaning: "(`serve --jsonl`) vtexec serve was stopped before the call ended; its command was killed"},
	{Codes: []Code{TooManyJobs}, Kind: Refusal, Security: false, Meaning: "(`vtexec serve`) more background jobs than a connection may keep"},
	{Codes: []Code{NoSuchJob}, Kind: Refusal, Security: false, Meaning: "(`vtexec serve`) the job named has ended and been collected, or never was"},
	{Codes: []Code{JobEnded}, Kind: Refusal, Security: false, Meaning: "(`vtexec serve`) the job ended before the input or the read"},
	{Codes: []Code{TerminalUnavailable}, Kind: Refusal, Security: false, Meaning: "(`vtexec serve`) a job that needs a terminal, where none can be opened"},
	{Codes: []Code{WriteFailed}, Kind: Refusal, Security: false, Meaning: "(`vtexec serve`) input could not be written to a job"},
	{Codes: []Code{Denied}, Kind: Refusal, Security: false, Meaning: "(`vtexec serve`) input was not typed into a job: it would run something vtexec did not check"},
	{Codes: []Code{InlineCode}, Kind: Ask, Security: false, Meaning: "(ask) a developer tool runs inline code: once or session only"},
	{Codes: []Code{AgentConfig}, Kind: Ask, Security: true, Meaning: "(ask) a write to agent or editor configuration (`.claude`, `.codex`, `.gemini`, `.cursor`, `.vscode`, `.idea`, `.mcp.json`, `.envrc`, `.gitattributes` at any depth, and what a policy's `protect` adds), which something runs code from later: once or for a session, never always"},
	{Codes: []Code{WorkspaceProgram}, Kind: Ask, Security: false, Meaning: "(ask) a program the workspace holds (`./bin/tool`): no validator judges it (not even the one of the program it is named after), it can be approved once or for a session only, it must still be the same file when it starts, and it runs confined"},
	{Codes: []Code{UnseenArguments}, Kind: Ask, Security: false, Meaning: "(ask) `xargs` adds arguments vtexec cannot see; `find -exec` runs a command on matches vtexec does not see (but a reader on `-type f` matches)"},
	{Codes: []Code{PolicyDeny, PolicyAsk}, Kind: Refusal, Security: false, Meaning: "a policy rule denied, or asks for, this part"},
	{Codes: []Code{BadPolicy}, Kind: Refusal, Security: false, Meaning: "a policy file or the trust store does not load (bad content, not a regular file, over 1 MiB, a link where none is followed): nothing runs until it is fixed; a rule that names its program but does not load (a bad decision, an example it does not match) refuses only that program's commands, naming its file and line"},
	{Codes: []Code{BadState}, Kind: Refusal, Security: false, Meaning: "a session file or the audit log is not usable (not a regular file, over 1 MiB, not a session, cannot be opened)"},
	{Codes: []Code{SessionNotSaved, AuditFailed}, Kind: Warning, Security: false, Meaning: "(in `warnings`, beside a result) the command ran, but its session cwd or its audit line was not saved"},
	{Codes: []Code{RunIncomplete}, Kind: Warning, Security: false, Meaning: "(in `warnings`) a later step could not be started (no descriptors for its pipes); the steps before it ran, exit 126"},
	{Codes: []Code{OutputIncomplete}, Kind: Warning, Security: false, Meaning: "(in `warnings`) a process outside the command kept writing after it ended; the bytes left unread are counted and `truncated` is set"},
	{Codes: []Code{OutOfMemory}, Kind: Warning, Security: false, Meaning: "(in `warnings`) the kernel killed a process of the command for exceeding the workspace's memory bound"},
	{Codes: []Code{DiskFull}, Kind: Warning, Security: false, Meaning: "(in `warnings`) after the run, a file system the command writes (the workspace, or its TMPDIR and HOME) had no space left: a write of the command may have failed for that"},
	{Codes: []Code{StateUnwritable}, Kind: Warning, Security: false, Meaning: "(in `warnings`) vtexec's state directory is full or read-only: the command ran without a session"},
	{Codes: []Code{ApprovalIdFailed}, Kind: Warning, Security: false, Meaning: "(in `warnings`) an approval id could not be made for the question (no key in the state directory)"},
	{Codes: []Code{Disarmed}, Kind: Warning, Security: false, Meaning: "(in `warnings`, with `disarmed` in the result) the command made something under a protected name, or a `.git` or `commondir` where none was; it was moved to vtexec's state directory"},
	{Codes: []Code{ChangedSinceCheck}, Kind: Stop, Security: false, Meaning: "(in `stopped`) a later step now needs an approval the check before the run did not find"},
	{Codes: []Code{CwdNotReached}, Kind: Stop, Security: false, Meaning: "(in `stopped`) a later step was checked in the directory a `cd` before it leads to, but that `cd` did not run or failed (`false && cd src; ls`): the run stops there rather than run the step elsewhere"},
	{Codes: []Code{RunTimeCheck}, Kind: Ask, Security: false, Meaning: "(ask, from check) words of the command are known only when it runs (`$(…)`, `$?`, variables, `while read`): run, it goes through vtexec's interpreter, which checks each command with its final words as it is reached and stops at the first one refused"},
	{Codes: []Code{CommandLimit, LoopLimit, SubstitutionLimit, WordLimit}, Kind: Stop, Security: false, Meaning: "(in `stopped`) a command run by the interpreter reached a bound of the request: 10,000 commands, 100,000 loop iterations, 1 MiB of one substitution's output, 4,096 words of one command"},
	{Codes: []Code{NetworkUnavailable}, Kind: Refusal, Security: false, Meaning: "a command a person granted the network could get it only in the host's network namespace: slirp4netns is not installed; nothing runs"},
	{Codes: []Code{ConfinementUnavailable}, Kind: Refusal, Security: false, Meaning: "`confinement = \"required\"` and the kernel cannot confine (no Landlock, no PID namespace, no network cut), or a protected name is a symbolic link; nothing runs"},
}
