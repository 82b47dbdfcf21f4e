package security

import "testing"

// Flags whose arity the specs had wrong, found by the flag-arity probe
// (tests/arity): a short flag the program reads as a plain switch was
// taken to carry an attached value, so the letters after it, which the
// program reads as more flags, went unchecked; and a long flag whose value
// the program takes only attached was taken to consume the next word.
var arityCases = []tableCase{
	// coreutils 9.1 ls -F takes no value: -FL is -F -L (follow links).
	{"ls -FL src", deny("forbidden_flag")},
	{"ls -F src", allow},
	{"ls --classify=never src", allow},
	// cp -u takes no value: -ul is -u -l (a hard link).
	{"cp -ul file.txt hardlink", deny("forbidden_flag")},
	// tail -f takes no value: -fX is -f -X.
	{"tail -fX file.txt", deny("unknown_flag")},
	// xargs --max-lines takes its value only attached: in
	// "xargs --max-lines 5 echo" the command is 5.
	{"xargs --max-lines 5 echo", deny("not_allowed")},
	// git --list-cmds takes its value only attached: push is the subcommand.
	{"git --list-cmds push", want{"ask", "git_network"}},
}

func TestArity(t *testing.T) { checkTable(t, arityCases) }
