package validators

import (
	"fmt"
	"regexp"
	"strings"
)

// awk (mawk 1.3.4 on Debian; gawk and busybox awk read the same programs).
// The program is a language: it can run commands (system(), print | "cmd",
// "cmd" | getline), write files (print > "file"), read files (getline <
// "file", or by rewriting ARGV), and in gawk load code (@load, @include,
// extension()) or call functions by name (@f()). None of that has a
// sandbox in mawk, so the program is scanned here and any of it refused:
//
//   - the words system, getline, extension, ARGV, ARGC and SYMTAB, and the
//     character @, are refused wherever they appear, even inside a string
//     or a regular expression, so no misreading of the program can hide
//     them;
//   - "|" (a pipe; "||" is or) is refused;
//   - ">" and ">>" in a print or printf statement, outside parentheses,
//     are output redirections: refused, except to exactly "/dev/stdout" or
//     "/dev/stderr". A comparison inside print needs parentheses, as awk's
//     grammar itself says: print (a > b).
//
// Reading the program needs telling a regular expression from a division.
// POSIX awk settles it by context: "/" is division wherever division could
// come next (after an operand), and starts a regular expression anywhere
// else; a condition's closing parenthesis (if, while, for) starts a
// statement, so a "/" there is a regular expression (mawk reads a division
// there, which is a syntax error). Where awks disagree the program is
// refused: "/" after length, ++ or -- (mawk starts a regular expression,
// gawk divides), after a word only some awks reserve (func, case, ...)
// and "/" inside a bracket expression (/[/]/).
//
// Options: -F and -v only; -f (a program file read when awk runs) and -W
// (mawk's extensions, which include -W exec) are refused. awk stops
// reading options at the program, as POSIX getopt does. Operands after the
// program are files (confined) or assignments NAME=value.

var awkSpec = &Spec{Name: "awk", Doc: "PROGRAM (scanned: system, pipes, getline, output redirection and ARGV refused) then files to read or NAME=value assignments", NoPermute: true, Operands: awkOperands, Flags: []Flag{
	{Short: "F", Arg: Text},
	{Short: "v", Arg: Text},
	{Short: "f", Arg: Text, Forbid: "reads the program from a file when awk runs, after vtexec checked it: pass the program inline"},
	{Short: "W", Arg: Text, Forbid: "mawk's extended options include -W exec, which runs a program file"},
	{Long: "version"}, {Long: "help"},
}}

func registerAwk() { registerSpec(awkSpec) }

var awkAssignment = &lazy[*regexp.Regexp]{make: func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) }}

// awkCommandLineVarsForbidden are variables an assignment may not set.
var awkCommandLineVarsForbidden = &lazy[map[string]bool]{make: func() map[string]bool { return map[string]bool{"ARGV": true, "ARGC": true} }}

func awkOperands(c *Call, a *Args) error {
	if helpOrVersion(a) {
		if len(a.Operands) > 0 || len(a.Flags) > 1 {
			return refuse(CodeBadUsage, "use awk --version alone", "%s --version or --help takes nothing else", c.Program())
		}
		return nil
	}
	for _, v := range a.Values("v") {
		if !awkAssignment.get().MatchString(v) {
			return refuse(CodeBadUsage, "write -v NAME=value", "%s -v %q is not an assignment NAME=value", c.Program(), v)
		}
		if name := v[:strings.IndexByte(v, '=')]; awkCommandLineVarsForbidden.get()[name] {
			return refuse(CodeForbiddenFlag, "leave "+name+" alone; list the files to read as operands",
				"%s -v %s: %s decides which files awk reads", c.Program(), name, name)
		}
	}
	if len(a.Operands) == 0 {
		return refuse(CodeBadUsage, "give a program: awk 'PROGRAM' [FILE...]", "%s: no program given", c.Program())
	}
	if err := checkAwkProgram(c.Program(), a.Operands[0]); err != nil {
		return err
	}
	for _, op := range a.Operands[1:] {
		if awkAssignment.get().MatchString(op) {
			if name := op[:strings.IndexByte(op, '=')]; awkCommandLineVarsForbidden.get()[name] {
				return refuse(CodeForbiddenFlag, "leave "+name+" alone; list the files to read as operands",
					"%s %s: %s decides which files awk reads", c.Program(), op, name)
			}
			continue
		}
		if err := c.ReadPath(op, true); err != nil {
			return err
		}
	}
	return nil
}

// awkForbiddenWords are refused anywhere in a program, with the reason.
var awkForbiddenWords = []struct{ word, reason string }{
	{"system", "system() runs a shell command"},
	{"getline", "getline reads from a file or a command"},
	{"extension", "extension() loads a shared library (gawk)"},
	{"ARGV", "ARGV decides which files awk reads; changing it reads files vtexec did not check"},
	{"ARGC", "ARGC decides which files awk reads"},
	{"SYMTAB", "SYMTAB reaches any variable by a computed name, ARGV included (gawk)"},
}

// awkDisputedWords are keywords in some awks and plain variables in
// others (mawk has no func, switch, case or default; gawk has them all,
// and BEGINFILE and ENDFILE): after one, whether "/" divides depends on
// which awk runs, so it is refused.
var awkDisputedWords = &lazy[map[string]bool]{make: func() map[string]bool {
	return map[string]bool{
		"func": true, "switch": true, "case": true, "default": true, "BEGINFILE": true, "ENDFILE": true, "nextfile": true,
	}
}}

// awkKeywords are followed by an operand, never by a division.
var awkKeywords = &lazy[map[string]bool]{make: func() map[string]bool {
	return map[string]bool{
		"BEGIN": true, "END": true, "function": true, "func": true, "if": true, "else": true,
		"while": true, "for": true, "do": true, "break": true, "continue": true, "next": true,
		"nextfile": true, "exit": true, "return": true, "delete": true, "in": true,
		"print": true, "printf": true,
	}
}}

// awkStdStreams are the only targets print may be redirected to.
var awkStdStreams = &lazy[map[string]bool]{make: func() map[string]bool { return map[string]bool{`"/dev/stdout"`: true, `"/dev/stderr"`: true} }}

const awkHint = "use awk only to read and print (redirect in the shell command instead); or ask a person to approve it"

func awkRefuse(program, format string, args ...any) error {
	return refuse(CodeForbiddenFlag, awkHint, "%s program: %s", program, fmt.Sprintf(format, args...))
}

// checkAwkProgram scans an awk program for the constructs above.
func checkAwkProgram(program, text string) error {
	for _, f := range awkForbiddenWords {
		if containsWord(text, f.word) {
			return awkRefuse(program, "%s", f.reason)
		}
	}
	if strings.ContainsRune(text, '@') {
		return awkRefuse(program, "@ loads code or calls a function by name (gawk)")
	}
	toks, err := awkTokens(text)
	if err != nil {
		return refuse(CodeBadUsage, "check the program's quoting; vtexec refuses what it cannot read", "%s program: %v", program, err)
	}
	inPrint, printDepth, depth := false, 0, 0
	for i, t := range toks {
		switch t.text {
		case "print", "printf":
			inPrint, printDepth = true, depth
		case "(":
			depth++
		case ")":
			depth--
		case ";", "{", "}":
			inPrint = false
		case "\n":
			if i > 0 && !awkContinues(toks[i-1].text) && depth <= printDepth {
				inPrint = false
			}
		case "|", "|&":
			return awkRefuse(program, "| pipes into or out of a shell command")
		case ">", ">>":
			if !inPrint || depth > printDepth {
				continue
			}
			if i+1 < len(toks) && awkStdStreams.get()[toks[i+1].text] &&
				(i+2 == len(toks) || awkEndsStatement(toks[i+2].text)) {
				continue
			}
			return awkRefuse(program, "print %s writes a file (for a comparison inside print, use parentheses: print (a > b))", t.text)
		}
	}
	return nil
}

// awkContinues reports whether a newline after prev continues the
// statement (gawk also continues after ? and :).
func awkContinues(prev string) bool {
	switch prev {
	case ",", "&&", "||", "{", "do", "else", "?", ":":
		return true
	}
	return false
}

func awkEndsStatement(tok string) bool { return tok == ";" || tok == "}" || tok == "\n" }

// containsWord reports whether word occurs in text as a whole identifier.
func containsWord(text, word string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		if (start == 0 || !isAwkIdent(text[start-1])) && (end == len(text) || !isAwkIdent(text[end])) {
			return true
		}
		i = start + 1
	}
}

func isAwkIdent(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

type awkToken struct{ text string }

// awkTokens splits a program into tokens: strings and regular expressions
// whole (with their delimiters), words, numbers, operators and newlines.
// Comments and line continuations are dropped.
func awkTokens(s string) ([]awkToken, error) {
	var toks []awkToken
	operand := false // the last token ends an operand: "/" is division
	// condParens counts open parentheses; condClose marks those that close
	// the condition of if, while or for.
	var condClose []bool
	prevWord := ""
	emit := func(text string, endsOperand bool) {
		toks = append(toks, awkToken{text})
		operand = endsOperand
	}
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\r':
			i++
			continue
		case ch == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i += 2
			continue
		case ch == '\\' && i+2 < len(s) && s[i+1] == '\r' && s[i+2] == '\n':
			i += 3
			continue
		case ch == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		case ch == '\n':
			emit("\n", false)
			i++
		case ch == '"':
			end, err := awkStringEnd(s, i)
			if err != nil {
				return nil, err
			}
			emit(s[i:end], true)
			i = end
		case ch == '/' && (prevWord == "++" || prevWord == "--" || prevWord == "length" || awkDisputedWords.get()[prevWord]):
			return nil, fmt.Errorf("\"/\" after %s at byte %d: awks disagree whether it divides or starts a regular expression (add parentheses)", prevWord, i)
		case ch == '/' && !operand:
			end, err := awkRegexEnd(s, i)
			if err != nil {
				return nil, err
			}
			emit(s[i:end], true)
			i = end
		case isAwkIdent(ch) && !(ch >= '0' && ch <= '9'):
			j := i
			for j < len(s) && isAwkIdent(s[j]) {
				j++
			}
			word := s[i:j]
			emit(word, !awkKeywords.get()[word])
			i = j
		case ch >= '0' && ch <= '9' || ch == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < len(s) && (isAwkIdent(s[j]) || s[j] == '.' ||
				(s[j] == '+' || s[j] == '-') && (s[j-1] == 'e' || s[j-1] == 'E')) {
				j++
			}
			emit(s[i:j], true)
			i = j
		default:
			op := awkOperator(s[i:])
			if op == "" {
				return nil, fmt.Errorf("unexpected character %q at byte %d", s[i], i)
			}
			i += len(op)
			switch op {
			case "(":
				condClose = append(condClose, prevWord == "if" || prevWord == "while" || prevWord == "for")
				emit(op, false)
			case ")":
				cond := false
				if n := len(condClose); n > 0 {
					cond, condClose = condClose[n-1], condClose[:n-1]
				}
				emit(op, !cond)
			case "]":
				emit(op, true)
			case "++", "--":
				emit(op, operand) // postfix after an operand, prefix before one
			default:
				emit(op, false)
			}
		}
		prevWord = toks[len(toks)-1].text
	}
	return toks, nil
}

var awkOperators = []string{
	"**=", "|&", "&&", "||", ">>", "<=", ">=", "==", "!=", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "**", "!~",
	"{", "}", "(", ")", "[", "]", ";", ",", "+", "-", "*", "/", "%", "^", "!", ">", "<", "|", "?", ":", "~", "$", "=",
}

func awkOperator(s string) string {
	for _, op := range awkOperators {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return ""
}

// awkStringEnd returns the index just past the string starting at s[i].
func awkStringEnd(s string, i int) (int, error) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '\n':
			return 0, fmt.Errorf("newline inside a string at byte %d", j)
		case '"':
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("unterminated string at byte %d", i)
}

// awkRegexEnd returns the index just past the regular expression starting
// at s[i]. A "/" inside a bracket expression is refused: awks disagree on
// whether it ends the expression.
func awkRegexEnd(s string, i int) (int, error) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '\n':
			return 0, fmt.Errorf("newline inside a regular expression at byte %d", j)
		case '/':
			return j + 1, nil
		case '[':
			end := awkBracketEnd(s, j)
			if end < 0 {
				return 0, fmt.Errorf("\"/\" or an unclosed \"[\" inside a bracket expression at byte %d (write \\/ outside brackets)", j)
			}
			j = end - 1
		}
	}
	return 0, fmt.Errorf("unterminated regular expression at byte %d", i)
}

// awkBracketEnd returns the index just past the bracket expression starting
// at s[i], or -1 if it is not closed on its line or holds an unescaped "/".
func awkBracketEnd(s string, i int) int {
	j := i + 1
	if j < len(s) && s[j] == '^' {
		j++
	}
	if j < len(s) && s[j] == ']' {
		j++
	}
	for ; j < len(s); j++ {
		switch {
		case s[j] == '[' && j+1 < len(s) && strings.ContainsRune(":.=", rune(s[j+1])):
			closer := string(s[j+1]) + "]"
			k := strings.Index(s[j+2:], closer)
			if k < 0 || strings.ContainsAny(s[j+2:j+2+k], "/\n") {
				return -1
			}
			j += 2 + k + 1
		case s[j] == '\\':
			j++
		case s[j] == '/' || s[j] == '\n':
			return -1
		case s[j] == ']':
			return j + 1
		}
	}
	return -1
}
