package execpolicy

import (
	"path/filepath"
	"strings"

	"github.com/vtexec/vtexec/plan"
)

// forbiddenPrograms are refused whatever their arguments, with the reason.
var forbiddenPrograms = map[string]string{}

func init() {
	for _, sh := range []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "csh", "tcsh", "fish", "rbash", "busybox"} {
		forbiddenPrograms[sh] = "a shell runs code vtexec cannot check; send the command itself (only a whole `bash -c 'CMD'` is unwrapped)"
	}
	for _, p := range []string{"sudo", "su", "doas", "pkexec", "runuser", "setpriv", "chroot", "unshare", "nsenter"} {
		forbiddenPrograms[p] = "changes privileges or isolation"
	}
}

// shellBuiltins have no meaning without a shell, or change shell state
// vtexec does not keep. cd is vtexec's own builtin and is not listed.
var shellBuiltins = map[string]string{}

func init() {
	for _, b := range strings.Fields(`alias unalias bg fg jobs disown wait suspend bind builtin caller command
		compgen complete compopt declare typeset local readonly export unset set shopt enable eval exec
		source . exit logout return break continue shift getopts hash help history fc let mapfile readarray
		read pushd popd dirs trap ulimit umask type times`) {
		shellBuiltins[b] = "vtexec runs programs directly, without a shell"
	}
}

// shellScript reports whether a plan is exactly one `bash -c SCRIPT` (or
// sh, with -l/--login allowed), and returns SCRIPT. Such a command is
// checked and run as SCRIPT itself, with no shell.
func shellScript(p *plan.Plan) (string, bool) {
	cmds := p.Commands()
	if len(cmds) != 1 || cmds[0].Program == "" || len(cmds[0].Redirects) > 0 {
		return "", false
	}
	argv := cmds[0].Argv
	if name := filepath.Base(argv[0]); name != "bash" && name != "sh" {
		return "", false
	}
	sawC := false
	for i := 1; i < len(argv); i++ {
		switch argv[i] {
		case "-c":
			sawC = true
		case "-l", "--login":
		case "-lc", "-cl":
			sawC = true
		default:
			if sawC && i == len(argv)-1 && !strings.HasPrefix(argv[i], "-") {
				return argv[i], true
			}
			return "", false
		}
	}
	return "", false
}
