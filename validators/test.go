package validators

import (
	"strings"
	"sync"
)

// test and [ are /usr/bin/test and /usr/bin/[ from GNU coreutils 9.1
// (commands run without a shell, so never bash's builtins). They stat
// the files their file tests name and compare strings and numbers; they
// open nothing, write nothing and run nothing. What they would tell is
// whether a file exists, and of what kind: so every word that is not an
// operator is confined like a path that is read when it names one
// outside the workspace (an absolute path, a path with "..", an
// existing name that leads out), whatever test makes of it. [ takes the
// same expression, ended by "]"; "[ --help ]" and "[ --version ]" print
// text.

// TestUnaryOperators are test's unary operators: file tests and the
// string tests -n and -z. Each takes the next word.
var TestUnaryOperators = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"-b": true, "-c": true, "-d": true, "-e": true, "-f": true, "-g": true, "-G": true, "-h": true,
		"-k": true, "-L": true, "-N": true, "-O": true, "-p": true, "-r": true, "-s": true, "-S": true,
		"-t": true, "-u": true, "-w": true, "-x": true, "-n": true, "-z": true,
	}
})

// testOperators are the words test and [ may read as operators: the
// unary ones, the binary ones and the connectives.
var testOperators = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{
		"!": true, "(": true, ")": true, "-a": true, "-o": true,
		"=": true, "==": true, "!=": true, "<": true, ">": true,
		"-eq": true, "-ne": true, "-lt": true, "-le": true, "-gt": true, "-ge": true,
		"-ef": true, "-nt": true, "-ot": true,
	}
	for op := range TestUnaryOperators() {
		m[op] = true
	}
	return m
})

func registerTest() {
	for _, name := range []string{"test", "["} {
		register(name, ValidatorFunc(checkTest), func() Entry {
			return Entry{Program: name, Operands: "EXPRESSION" + map[bool]string{true: " ]", false: ""}[name == "["] +
				": file tests (-e -f -d -r -w -x -s -L …, -nt -ot -ef), string tests (-n -z = != < >) and number comparisons (-eq -ne -lt -le -gt -ge), joined by ! -a -o ( ); a word that names a path outside the workspace is refused, whatever its place",
				Allowed: []string{"--help", "--version"}}
		})
	}
}

func checkTest(c *Call) error {
	args := c.Argv[1:]
	if c.Program() == "[" || strings.HasSuffix(c.Program(), "/[") {
		if len(args) > 0 && args[len(args)-1] == "]" {
			args = args[:len(args)-1]
		}
	}
	for _, a := range args {
		if a == "" || testOperators()[a] || !looksLikePath(a) {
			continue
		}
		if err := c.ReadPath(a, false); err != nil {
			return err
		}
	}
	return nil
}

// looksLikePath reports whether a word of a test expression could be
// read as a path that leaves the cwd: absolute, with "..", or a name in
// the cwd (an existing link may lead out; ReadPath follows it).
func looksLikePath(a string) bool {
	return !strings.HasPrefix(a, "-") || strings.Contains(a, "/")
}
