package validators

import "sync"

// Programs refused outright, and the shapes of rule a program may not
// have: what vtexec knows of a program besides its validator and its
// profile (see ProfileOf).

// Refused is why a program is refused whatever its arguments, and what
// to do instead.
type Refused struct {
	Reason string
	Hint   string
}

// forbiddenGroups are the programs refused outright, each group with the
// reason and the safe alternative. They are not asked about: no answer
// makes them safe here. It is static data: nothing is built at start-up.
var forbiddenGroups = []struct {
	names []string
	Refused
}{
	{[]string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "csh", "tcsh", "fish", "rbash", "busybox"},
		Refused{"a shell runs code vtexec cannot check (only a whole `bash -c 'CMD'` is unwrapped and checked as CMD)",
			"send the command itself; vtexec parses lists and pipelines"}},
	{[]string{"pwsh", "powershell", "powershell_ise", "cmd"},
		Refused{"is a Windows shell: PowerShell and cmd run a language vtexec does not parse, so nothing it would run can be checked",
			"send the command as a POSIX command line (as Git Bash takes it); vtexec parses and checks that"}},
	{[]string{"sudo", "su", "doas", "pkexec", "runuser", "setpriv", "chroot", "unshare", "nsenter", "capsh", "runas"},
		Refused{"changes privileges or isolation",
			"run the command as yourself, inside the workspace"}},
	{[]string{"dd"},
		Refused{"writes raw bytes to any file or device",
			"use cp for files inside the workspace"}},
	{[]string{"mkfs", "mkfs.ext2", "mkfs.ext3", "mkfs.ext4", "mkfs.xfs", "mkfs.btrfs", "mkfs.vfat", "mkfs.fat", "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "parted", "shred", "format", "diskpart"},
		Refused{"destroys file systems or data",
			"there is no safe form of this command here"}},
	{[]string{"shutdown", "reboot", "halt", "poweroff", "init", "telinit", "systemctl", "service", "sc", "reg", "bcdedit"},
		Refused{"controls the machine or its services",
			"ask the user to do it"}},
	{[]string{"chown", "chgrp", "chattr", "setfacl"},
		Refused{"changes ownership or attributes",
			"a person can run it; vtexec keeps file ownership as it is"}},
	{[]string{"curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "tftp"},
		Refused{"reaches the network, which commands run by vtexec may not",
			"ask the user to fetch the data, or use files already in the workspace"}},
	{[]string{"docker", "podman", "kubectl", "nerdctl", "crictl", "ctr", "helm"},
		Refused{"controls containers or clusters beyond the workspace",
			"ask the user to run it"}},
	{[]string{"kill", "pkill", "killall", "taskkill"},
		Refused{"signals processes outside the command",
			"long commands end at the timeout"}},
	{[]string{"crontab", "at", "batch", "schtasks"},
		Refused{"schedules commands to run later, outside vtexec",
			"run the command now"}},
	{[]string{"vtexec", "vtexec-serve"},
		Refused{"is vtexec itself: a command may not run vtexec, whose flags could approve commands or change its confinement",
			"send the command itself; vtexec runs it"}},
	{[]string{"ionice", "chrt", "taskset", "setarch", "linux32", "linux64", "flock", "sg", "newgrp", "script", "prlimit", "systemd-run", "watch", "strace", "ltrace", "gdb", "valgrind", "expect", "parallel", "faketime", "fakeroot", "firejail", "bwrap", "proot", "setsid", "numactl", "cpulimit", "wsl"},
		Refused{"runs another program given in its arguments, which vtexec would not see",
			"run the program directly; timeout, nice, nohup, stdbuf and env are understood"}},
}

// Forbidden returns why the program called name is refused outright, if
// it is.
func Forbidden(name string) (Refused, bool) {
	for _, g := range forbiddenGroups {
		for _, n := range g.names {
			if n == name {
				return g.Refused, true
			}
		}
	}
	return Refused{}, false
}

// ForbiddenPrograms calls f with every program refused outright.
func ForbiddenPrograms(f func(name string, why Refused)) {
	for _, g := range forbiddenGroups {
		for _, n := range g.names {
			f(n, g.Refused)
		}
	}
}

// aliases are other names of a program.
var aliases = map[string]string{"nodejs": "node", "pypy3": "pypy"}

// AliasOf is the program name is another name of, or "".
func AliasOf(name string) string { return aliases[name] }

// noAnyArguments are programs a rule may not allow with any arguments:
// what they would then approve is unbounded damage.
var noAnyArguments = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"rm":       "it would approve removing anything in the workspace",
		"rmdir":    "it would approve removing any directory in the workspace",
		"unlink":   "it would approve removing anything in the workspace",
		"shred":    "it would approve destroying any file in the workspace",
		"truncate": "it would approve emptying any file in the workspace",
		"find":     "it would approve find -delete on anything in the workspace",
		"git":      "it would approve every git command, history rewrites and pushes included; name the subcommand (git commit)",
	}
})

// NoAnyArguments says why the program called name may not be allowed
// with any arguments, or "" if it may.
func NoAnyArguments(name string) string { return noAnyArguments()[name] }

// ShellBuiltin reports whether name is a shell builtin: builtins have no
// meaning without a shell, or change shell state vtexec does not keep. cd
// is vtexec's own builtin and is not listed; command is unwrapped (its
// profile, ProfileOf).
func ShellBuiltin(name string) bool {
	switch name {
	case "alias", "unalias", "bg", "fg", "jobs", "disown", "wait", "suspend", "bind", "builtin", "caller",
		"compgen", "complete", "compopt", "declare", "typeset", "local", "readonly", "export", "unset", "set", "shopt", "enable", "eval", "exec",
		"source", ".", "exit", "logout", "return", "break", "continue", "shift", "getopts", "hash", "help", "history", "fc", "let", "mapfile", "readarray",
		"read", "pushd", "popd", "dirs", "trap", "ulimit", "umask", "type", "times":
		return true
	}
	return false
}
