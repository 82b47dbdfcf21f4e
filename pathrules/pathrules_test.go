package pathrules

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// rules are the functions the tables check; a test swaps one for a
// deliberately wrong version to show that the tables catch it.
type rules struct {
	refusal       func(string) string
	winWithin     func(root, p string) bool
	msys          func(string) (string, bool)
	darwinWithin  func(root, p string) bool
	darwinOther   func(p, user string) bool
	wslDrive      func(string) (string, bool)
	isWSL         func(string) bool
	darwinTempDir func(string) string
	operand       func(string) (string, string)
	msysArgument  func(string) (string, bool)
}

var real = rules{WindowsRefusal, WindowsWithin, MSYSToWindows, DarwinWithin, DarwinOtherHome, WSLDrive, IsWSL, DarwinTempDir, WindowsOperand, MSYSArgument}

type row struct {
	name string
	ok   func(r rules) bool
}

// table builds the rows: hundreds, from the cases Windows, macOS and
// WSL have.
func table() []row {
	var rows []row
	add := func(name string, ok func(r rules) bool) { rows = append(rows, row{name, ok}) }
	refused := func(p string) { add("refused "+p, func(r rules) bool { return r.refusal(p) != "" }) }
	accepted := func(p string) { add("accepted "+p, func(r rules) bool { return r.refusal(p) == "" }) }

	// Reserved device names, in any case, with any extension, in any
	// directory.
	for _, n := range []string{"CON", "PRN", "AUX", "NUL", "COM1", "COM5", "COM9", "LPT1", "LPT9", "CONIN$", "CONOUT$"} {
		for _, form := range []string{`C:\work\%s`, `C:\work\%s.txt`, `C:\work\sub\%s.tar.gz`, `%s`, `dir\%s.log`} {
			for _, name := range []string{n, strings.ToLower(n)} {
				refused(fmt.Sprintf(form, name))
			}
		}
	}
	for _, p := range []string{`C:\work\CONSOLE.txt`, `C:\work\nullify`, `C:\work\com10`, `C:\work\lpt`, `C:\work\auxiliary.go`, `C:\work\COM`} {
		accepted(p)
	}
	// Drive-relative, root-relative and device paths.
	for _, p := range []string{`C:foo`, `c:foo\bar`, `D:`, `\foo`, `/foo`, `\Windows\System32`, `\\?\C:\work`, `\\.\COM1`, `//?/C:/work`, `\??\C:\work`, `\\.\PhysicalDrive0`} {
		refused(p)
	}
	// Streams, characters, trailing dots and spaces, short names.
	for _, p := range []string{`C:\work\a.txt:secret`, `C:\work\a.txt::$DATA`, `C:\work\dir:x\b`, `a:b`, `C:\work\a*.txt`, `C:\work\a?`, `C:\work\"q"`,
		`C:\work\a<b`, `C:\work\a|b`, `C:\work\file.`, `C:\work\file `, `C:\work\dir.\x`, `C:\work\dir \x`, `C:\work\...`, `C:\PROGRA~1\x`, `C:\work\LONGFI~1.TXT`,
		`C:\work\ab~12`, "C:\\work\\a\x01b", ""} {
		refused(p)
	}
	for _, p := range []string{`C:\work\a.txt`, `C:\work\.git\config`, `C:\work\..\other`, `C:/work/src/main.go`, `\\server\share\dir\f.txt`, `src\main.go`,
		`C:\work\a~b`, `C:\work\~tmp`, `C:\work\ab~x1`, `C:\work\my file.txt`, `C:\work\.hidden`, `C:\`, `C:\work\ab~1longext`} {
		accepted(p)
	}

	// Inside a root: whole components, any case, either slash, .. resolved.
	in := func(root, p string) { add("inside "+root+" "+p, func(r rules) bool { return r.winWithin(root, p) }) }
	out := func(root, p string) { add("outside "+root+" "+p, func(r rules) bool { return !r.winWithin(root, p) }) }
	for _, root := range []string{`C:\work`, `c:\Work`, `C:/work/`, `C:\work\.`} {
		for _, p := range []string{`C:\work`, `C:\work\a.txt`, `c:\WORK\Src\x.go`, `C:/work/src/x.go`, `C:\work\src\..\b`, `C:\work\.\c`, `C:\work\\d`} {
			in(root, p)
		}
		for _, p := range []string{`C:\workshop\a`, `C:\work2`, `C:\wor`, `D:\work\a`, `C:\work\..\other`, `C:\work\src\..\..\x`, `C:\`, `\\server\share\work`, `C:work\a`, `work\a`} {
			out(root, p)
		}
	}
	for _, p := range []string{`\\server\share\proj\a`, `\\SERVER\Share\proj`, `//server/share/proj/x/y`} {
		in(`\\server\share\proj`, p)
	}
	for _, p := range []string{`\\server\share\project`, `\\server\other\proj`, `\\other\share\proj`, `\\server\share\proj\..\x`, `C:\proj`} {
		out(`\\server\share\proj`, p)
	}

	// Git Bash, MSYS2 and Cygwin paths.
	msys := func(p, want string) {
		add("msys "+p, func(r rules) bool {
			got, ok := r.msys(p)
			return ok == (want != "") && got == want
		})
	}
	msys("/c/Users/me/work", `C:\Users\me\work`)
	msys("/C/Users/me", `C:\Users\me`)
	msys("/d", `D:\`)
	msys("/cygdrive/c/Users/me/x", `C:\Users\me\x`)
	msys("/cygdrive/e/", `E:\`)
	msys("C:/Users/me", `C:\Users\me`)
	msys("/c/work/../x", `C:\x`)
	for _, p := range []string{"/usr/bin", "/tmp/x", "/home/me", "/cd/x", "/c1/x", "relative/x", "C:x", "/cygdrive/cc/x", ""} {
		msys(p, "")
	}

	// An operand as typed in Git Bash, MSYS2, Cygwin or a native shell:
	// the path checked, or refused.
	operand := func(p, want string) {
		add("operand "+p, func(r rules) bool {
			got, why := r.operand(p)
			return got == want && (why != "") == (want == "")
		})
	}
	operand("C:/work/a.txt", `C:\work\a.txt`)
	operand("c:/work//src/../a.txt", `C:\work\a.txt`)
	operand("src/a.go", "src/a.go")
	operand("../x", "../x")
	operand("//server/share/x", "//server/share/x")
	for _, p := range []string{`C:\work\a.txt`, `src\a.go`, `..\x`, `\\server\share\x`, `src\..\..\x`, `C:/work\..\..`} {
		operand(p, "") // bash reads \ as an escape; a check splitting at / would miss its names
	}
	for _, p := range []string{"/c/work/a.txt", "/cygdrive/c/work/a.txt", "/usr/bin/env", "/tmp/x", "/etc/passwd", "/home/me", `\Windows\x`, "C:x", `\\?\C:\work`, "/c/work/nul", "/c/work/a.txt:s", "/c/PROGRA~1/x", "a.txt::$DATA", "/c/work/x."} {
		operand(p, "")
	}
	// MSYS's conversion of arguments for native programs.
	argument := func(a, want string) {
		add("argument "+a, func(r rules) bool {
			got, changed := r.msysArgument(a)
			return got == want && changed == (a != want)
		})
	}
	argument("/c/work/a.txt", "C:/work/a.txt")
	argument("/cygdrive/d/x/", "D:/x/")
	argument("--dir=/c/work", "--dir=C:/work")
	argument("-C/c/work", "-C/c/work")
	for _, a := range []string{"/usr/bin", "hello", "--dir=/usr/x", "a=/c/x", "C:/work", "/cc/x", "--", "-", "", "s/c/d/g"} {
		argument(a, a)
	}

	// macOS: /var, /tmp and /etc are /private's; names compare without
	// case; other users' homes; the per-user temporary directory.
	din := func(root, p string) {
		add("darwin inside "+root+" "+p, func(r rules) bool { return r.darwinWithin(root, p) })
	}
	dout := func(root, p string) {
		add("darwin outside "+root+" "+p, func(r rules) bool { return !r.darwinWithin(root, p) })
	}
	for _, root := range []string{"/var/folders/ab/cd/T/work", "/private/var/folders/ab/cd/T/work", "/VAR/folders/ab/cd/T/Work"} {
		for _, p := range []string{"/var/folders/ab/cd/T/work/a", "/private/var/folders/ab/cd/T/work", "/private/var/folders/AB/cd/T/WORK/x/y", "/var/folders/ab/cd/T/work/./z"} {
			din(root, p)
		}
		for _, p := range []string{"/var/folders/ab/cd/T/workshop", "/var/folders/ab/cd/T", "/private/var/folders/ab/cd/T/work/../x", "/tmp/work", "relative"} {
			dout(root, p)
		}
	}
	din("/tmp/w", "/private/tmp/w/x")
	din("/private/etc", "/etc/hosts")
	dout("/Users/me/work", "/Users/me/workshop")
	din("/Users/me/work", "/users/ME/Work/src")
	other := func(p, user string, want bool) {
		add(fmt.Sprintf("darwin other home %s %s", p, user), func(r rules) bool { return r.darwinOther(p, user) == want })
	}
	other("/Users/alice/.ssh/id_rsa", "me", true)
	other("/Users/ALICE/x", "me", true)
	other("/Users/me/x", "me", false)
	other("/Users/Me/x", "me", false)
	other("/Users/Shared/x", "me", false)
	other("/Users", "me", false)
	other("/Volumes/Users/alice", "me", false)
	other("/Users/me/../alice/x", "me", true)
	tmp := func(tmpdir, want string) {
		add("darwin tmpdir "+tmpdir, func(r rules) bool { return r.darwinTempDir(tmpdir) == want })
	}
	tmp("/var/folders/ab/cdef/T/", "/private/var/folders/ab/cdef/T")
	tmp("/private/var/folders/ab/cdef/T", "/private/var/folders/ab/cdef/T")
	tmp("/tmp", "")
	tmp("/Users/me/tmp", "")

	// WSL: the kernel says so; /mnt/<drive> is the Windows drive.
	wsl := func(rel string, want bool) {
		add("wsl release "+rel, func(r rules) bool { return r.isWSL(rel) == want })
	}
	wsl("5.15.153.1-microsoft-standard-WSL2", true)
	wsl("4.4.0-19041-Microsoft", true)
	wsl("6.6.36.3-microsoft-standard-WSL2+", true)
	wsl("6.1.0-18-amd64", false)
	wsl("6.8.0-45-generic", false)
	drive := func(p, want string) {
		add("wsl drive "+p, func(r rules) bool {
			got, ok := r.wslDrive(p)
			return ok == (want != "") && got == want
		})
	}
	drive("/mnt/c/Users/me/work", `C:\Users\me\work`)
	drive("/mnt/d", `D:\`)
	drive("/mnt/c/../c/x", `C:\x`)
	drive("/mnt/c//Users", `C:\Users`)
	for _, p := range []string{"/mnt", "/mnt/", "/mnt/cd/x", "/mnt/wsl/x", "/home/me/mnt/c", "mnt/c/x", "/mnt/1/x"} {
		drive(p, "")
	}
	return rows
}

func failing(r rules) []string {
	var out []string
	for _, row := range table() {
		if !row.ok(r) {
			out = append(out, row.name)
		}
	}
	return out
}

// Every row holds for the rules as written.
func TestPathRules(t *testing.T) {
	rows := table()
	t.Logf("%d rows", len(rows))
	assert.Greater(t, len(rows), 300)
	assert.Empty(t, failing(real))
}

// Each rule that matters is one the tables catch when it is wrong.
func TestPathRulesCatchWrongRules(t *testing.T) {
	wrong := map[string]func(r *rules){
		"within by string prefix": func(r *rules) {
			r.winWithin = func(root, p string) bool {
				return strings.HasPrefix(strings.ToUpper(WindowsClean(p)), strings.ToUpper(strings.TrimRight(WindowsClean(root), `\`)))
			}
		},
		"within with case": func(r *rules) {
			r.winWithin = func(root, p string) bool {
				a, b := strings.TrimRight(WindowsClean(root), `\`), WindowsClean(p)
				return b == a || strings.HasPrefix(b, a+`\`)
			}
		},
		"within without resolving ..": func(r *rules) {
			r.winWithin = func(root, p string) bool {
				a := strings.ToUpper(strings.TrimRight(strings.ReplaceAll(root, "/", `\`), `\`))
				b := strings.ToUpper(strings.ReplaceAll(p, "/", `\`))
				return b == a || strings.HasPrefix(b, a+`\`)
			}
		},
		"reserved names only bare": func(r *rules) {
			r.refusal = func(p string) string {
				if strings.Contains(p, ".") && reserved()[strings.ToUpper(strings.SplitN(p[strings.LastIndexAny(p, `\/`)+1:], ".", 2)[0])] {
					return ""
				}
				return WindowsRefusal(p)
			}
		},
		"drive-relative accepted": func(r *rules) {
			r.refusal = func(p string) string {
				if WindowsForm(p) == WinDriveRelative {
					return ""
				}
				return WindowsRefusal(p)
			}
		},
		"streams accepted": func(r *rules) {
			r.refusal = func(p string) string {
				if why := WindowsRefusal(p); !strings.Contains(why, "stream") {
					return why
				}
				return ""
			}
		},
		"short names accepted": func(r *rules) {
			r.refusal = func(p string) string {
				if why := WindowsRefusal(p); !strings.Contains(why, "8.3") {
					return why
				}
				return ""
			}
		},
		"trailing dots accepted": func(r *rules) {
			r.refusal = func(p string) string {
				if why := WindowsRefusal(p); !strings.Contains(why, "strips") {
					return why
				}
				return ""
			}
		},
		"msys without cygdrive": func(r *rules) {
			r.msys = func(p string) (string, bool) {
				if strings.HasPrefix(p, "/cygdrive/") {
					return "", false
				}
				return MSYSToWindows(p)
			}
		},
		"darwin without /private": func(r *rules) {
			r.darwinWithin = func(root, p string) bool {
				a, b := strings.ToLower(path.Clean(root)), strings.ToLower(path.Clean(p))
				return b == a || strings.HasPrefix(b, a+"/")
			}
		},
		"darwin with case": func(r *rules) {
			r.darwinWithin = func(root, p string) bool {
				a, b := DarwinCanonical(root), DarwinCanonical(p)
				return b == a || strings.HasPrefix(b, a+"/")
			}
		},
		"darwin other home without cleaning": func(r *rules) {
			r.darwinOther = func(p, user string) bool {
				rest, ok := strings.CutPrefix(p, "/Users/")
				name, _, _ := strings.Cut(rest, "/")
				return ok && name != user && name != "Shared"
			}
		},
		"operand /c/ converted where the program would not": func(r *rules) {
			r.operand = func(p string) (string, string) {
				if w, ok := MSYSToWindows(p); ok && strings.HasPrefix(p, "/") {
					return w, ""
				}
				return WindowsOperand(p)
			}
		},
		"operand with backslashes": func(r *rules) {
			r.operand = func(p string) (string, string) {
				if strings.Contains(p, `\`) && !strings.HasPrefix(p, `\\`) {
					return WindowsClean(p), ""
				}
				return WindowsOperand(p)
			}
		},
		"operand not cleaned": func(r *rules) {
			r.operand = func(p string) (string, string) {
				if _, why := WindowsOperand(p); why != "" {
					return "", why
				}
				return p, ""
			}
		},
		"argument converted in any value": func(r *rules) {
			r.msysArgument = func(a string) (string, bool) {
				if name, v, ok := strings.Cut(a, "="); ok {
					if w, ok := MSYSToWindows(v); ok && strings.HasPrefix(v, "/") {
						return name + "=" + strings.ReplaceAll(w, `\`, "/"), true
					}
				}
				return MSYSArgument(a)
			}
		},
		"wsl by WSL only": func(r *rules) { r.isWSL = func(s string) bool { return strings.Contains(s, "WSL") } },
		"wsl drive any name": func(r *rules) {
			r.wslDrive = func(p string) (string, bool) {
				rest, ok := strings.CutPrefix(path.Clean(p), "/mnt/")
				if !ok || rest == "" {
					return "", false
				}
				d, tail, _ := strings.Cut(rest, "/")
				return WindowsClean(strings.ToUpper(d[:1]) + `:\` + tail), true
			}
		},
	}
	for name, break_ := range wrong {
		r := real
		break_(&r)
		assert.NotEmpty(t, failing(r), "the tables do not catch: %s", name)
	}
}
