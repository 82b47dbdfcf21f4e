package execpolicy

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/vtexec/vtexec/plan"
)

// forbidden is a program refused whatever its arguments.
type forbidden struct {
	reason string
	hint   string
}

// forbiddenPrograms are refused outright, each with the reason and the safe
// alternative. They are not asked about: no answer makes them safe here.
var forbiddenPrograms = sync.OnceValue(func() map[string]forbidden {
	m := map[string]forbidden{}
	forbid := func(names string, reason, hint string) {
		for _, n := range strings.Fields(names) {
			m[n] = forbidden{reason, hint}
		}
	}
	forbid("sh bash dash zsh ksh mksh ash csh tcsh fish rbash busybox",
		"a shell runs code vtexec cannot check (only a whole `bash -c 'CMD'` is unwrapped and checked as CMD)",
		"send the command itself; vtexec parses lists and pipelines")
	forbid("sudo su doas pkexec runuser setpriv chroot unshare nsenter capsh",
		"changes privileges or isolation", "run the command as yourself, inside the workspace")
	forbid("dd", "writes raw bytes to any file or device", "use cp for files inside the workspace")
	forbid("mkfs mkfs.ext2 mkfs.ext3 mkfs.ext4 mkfs.xfs mkfs.btrfs mkfs.vfat mkfs.fat mke2fs mkswap wipefs fdisk sfdisk parted shred",
		"destroys file systems or data", "there is no safe form of this command here")
	forbid("shutdown reboot halt poweroff init telinit systemctl service",
		"controls the machine or its services", "ask the user to do it")
	forbid("chown chgrp chattr setfacl",
		"changes ownership or attributes", "a person can run it; vtexec keeps file ownership as it is")
	forbid("curl wget ssh scp sftp rsync nc ncat netcat socat telnet ftp tftp",
		"reaches the network, which commands run by vtexec may not",
		"ask the user to fetch the data, or use files already in the workspace")
	forbid("docker podman kubectl nerdctl crictl ctr helm",
		"controls containers or clusters beyond the workspace", "ask the user to run it")
	forbid("kill pkill killall", "signals processes outside the command", "long commands end at the timeout")
	forbid("crontab at batch", "schedules commands to run later, outside vtexec", "run the command now")
	forbid("ionice chrt taskset setarch linux32 linux64 flock sg newgrp script prlimit systemd-run watch "+
		"strace ltrace gdb valgrind expect parallel faketime fakeroot firejail bwrap proot setsid numactl cpulimit",
		"runs another program given in its arguments, which vtexec would not see",
		"run the program directly; timeout, nice, nohup, stdbuf and env are understood")
	return m
})

// versionSuffix is a version at the end of a program name: python3.11,
// perl5.36.0, gcc-12, node18; platformSuffix a GNU triplet after it
// (perl5.36-x86_64-linux-gnu).
var (
	versionSuffix  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*[a-z])[-_]?[0-9]+(\.[0-9]+)*$`) })
	platformSuffix = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`-(x86_64|i[3-6]86|aarch64|arm[a-z0-9]*|riscv64|powerpc64le|ppc64el|s390x|mips[a-z0-9]*)-linux-gnu[a-z]*$`)
	})
)

// programAliases are other names of a program.
var programAliases = map[string]string{"nodejs": "node", "python": "python", "pypy3": "pypy"}

// canonicalProgram is name without a platform or version suffix, so that
// rules about python, perl or bash also hold for python3.11,
// perl5.36-x86_64-linux-gnu and bash5.2.
func canonicalProgram(name string) string {
	name = platformSuffix().ReplaceAllString(name, "")
	if m := versionSuffix().FindStringSubmatch(name); m != nil && len(m[1]) >= 2 {
		name = m[1]
	}
	if a, ok := programAliases[name]; ok {
		return a
	}
	return name
}

// programNames are the names a program goes by: as typed, without its
// version, and those of the file it runs (prog, links followed), so that
// a link named after something harmless still counts as what it runs.
func programNames(name, prog string) []string {
	names := []string{name}
	add := func(n string) {
		for _, m := range names {
			if m == n {
				return
			}
		}
		names = append(names, n)
	}
	add(canonicalProgram(name))
	if prog != "" {
		if real, err := filepath.EvalSymlinks(prog); err == nil {
			add(filepath.Base(real))
			add(canonicalProgram(filepath.Base(real)))
		}
	}
	return names
}

// shellBuiltins have no meaning without a shell, or change shell state
// vtexec does not keep. cd is vtexec's own builtin and is not listed;
// command is unwrapped (see unwrapCommand).
var shellBuiltins = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, b := range strings.Fields(`alias unalias bg fg jobs disown wait suspend bind builtin caller
		compgen complete compopt declare typeset local readonly export unset set shopt enable eval exec
		source . exit logout return break continue shift getopts hash help history fc let mapfile readarray
		read pushd popd dirs trap ulimit umask type times`) {
		m[b] = "vtexec runs programs directly, without a shell"
	}
	return m
})

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
