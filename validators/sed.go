package validators

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vtexec/vtexec/workspace"
)

// sed (GNU sed 4.9). The flags are a table; the script is a language, so it
// is parsed here the way sed's own compiler (sed/compile.c) reads it, and
// every command that runs a program (e, s///e), writes a file (w, W,
// s///w) or reads one (r, R) is found and checked. A script vtexec cannot
// parse is refused, never guessed at.

var sedSpec = &Spec{Name: "sed", Doc: "SCRIPT (unless -e/-f; parsed: e and s///e refused, r/R/w/W files confined) then files to read, or with -i to rewrite", Operands: sedOperands, Flags: []Flag{
	{Short: "n", Long: "quiet"}, {Long: "silent"}, {Long: "debug"},
	{Short: "e", Long: "expression", Arg: Text, Pattern: true},
	{Short: "f", Long: "file", Arg: ReadPath, Pattern: true},
	{Short: "i", Long: "in-place", Arg: Text, Optional: true},
	{Short: "l", Long: "line-length", Arg: Number},
	{Long: "posix"}, {Short: "E"}, {Short: "r", Long: "regexp-extended"},
	{Short: "s", Long: "separate"}, {Long: "sandbox"}, {Short: "u", Long: "unbuffered"},
	{Short: "z", Long: "null-data"}, {Long: "zero-terminated"}, {Short: "b", Long: "binary"},
	{Long: "help"}, {Long: "version"},
	{Long: "follow-symlinks", Forbid: "makes -i edit the file a symbolic link points to, which can be outside the workspace"},
}}

func registerSed() { registerSpec(sedSpec) }

// sedMaxScript caps the size of a script file read with -f.
const sedMaxScript = 1 << 20

// sedOperands assembles the script from -e and -f in command-line order
// (or takes the first operand when neither is given), checks it, and checks
// the input files: read, or with -i rewritten in place.
func sedOperands(c *Call, a *Args) error {
	var parts []string
	for _, u := range a.Flags {
		switch u.Flag.Short {
		case "e":
			parts = append(parts, u.Value)
		case "f":
			// The file is read again when sed runs, and a command earlier
			// in the same list may rewrite it: only --sandbox, which makes
			// sed itself refuse e, r and w, keeps what runs within the check.
			if !a.Has("sandbox") {
				return refuse(CodeForbiddenFlag, "add --sandbox (sed then refuses e, r and w itself), or pass the script with -e",
					"sed -f %s: the script file is read when sed runs, after vtexec checked it", u.Value)
			}
			text, err := readSedScript(c, u.Value)
			if err != nil {
				return err
			}
			parts = append(parts, text)
		}
	}
	files := a.Operands
	if len(parts) == 0 {
		if len(files) == 0 {
			if a.Has("help") || a.Has("version") {
				return nil
			}
			return refuse(CodeBadUsage, "give a script: sed SCRIPT [FILE...]", "sed: no script given")
		}
		parts, files = files[:1], files[1:]
	}
	// GNU sed compiles each -e and -f in turn, and an a, i or c command whose
	// text ends in a backslash continues into the next one. Joining the pieces
	// with newlines reads every script sed accepts the same way.
	if err := checkSedScript(c, strings.Join(parts, "\n"), a.Has("posix")); err != nil {
		return err
	}
	suffixes := a.Values("i")
	for _, f := range files {
		var err error
		if len(suffixes) > 0 {
			err = checkSedInPlace(c, f, suffixes[len(suffixes)-1])
		} else {
			err = c.ReadPath(f, true)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readSedScript returns the text of a -f script file inside the workspace.
func readSedScript(c *Call, name string) (string, error) {
	if name == "-" {
		return "", refuse(CodeForbiddenFlag, "put the script in a file in the workspace, or pass it with -e",
			"sed -f -: the script would come from standard input, which vtexec cannot check")
	}
	real, err := c.WS.Resolve(name, workspace.Read)
	if err != nil {
		return "", pathFinding(c.Program(), name, err)
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return "", refuse(CodeBadUsage, "name an existing script file", "sed -f %s: not a readable regular file", name)
	}
	if fi.Size() > sedMaxScript {
		return "", refuse(CodeBadUsage, "use a shorter script", "sed -f %s: script larger than %d bytes", name, sedMaxScript)
	}
	f, err := os.Open(real)
	if err != nil {
		return "", refuse(CodeBadUsage, "name an existing script file", "sed -f %s: %v", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, sedMaxScript+1))
	if err != nil || len(b) > sedMaxScript {
		return "", refuse(CodeBadUsage, "name an existing script file", "sed -f %s: cannot read the script", name)
	}
	return string(b), nil
}

// checkSedInPlace checks a file that sed -i rewrites, and the backup it
// makes when the suffix asks for one. sed writes the new text to a
// temporary file beside the original, renames the original to the backup
// name (if any), and renames the temporary file over the original's name.
func checkSedInPlace(c *Call, name, suffix string) error {
	if err := checkRenameTarget(c, name); err != nil {
		return err
	}
	// As sed does: a suffix without "*" is appended; otherwise each "*" is
	// replaced by the file name as given, so the backup can land anywhere.
	if !strings.Contains(suffix, "*") {
		suffix = "*" + suffix
	}
	if suffix == "*" {
		return nil
	}
	return checkRenameTarget(c, strings.ReplaceAll(suffix, "*", name))
}

// checkRenameTarget checks a path that a file is renamed onto. A rename
// replaces a symbolic link instead of writing through it, so the path must
// not be one (sed -i would turn the link into a regular file), and the
// directory holding it must be writable.
func checkRenameTarget(c *Call, name string) error {
	if err := c.WritePath(name); err != nil {
		return err
	}
	parent, last := workspace.SplitLast(name)
	dir, err := c.WS.Resolve(parent, workspace.Write)
	if err != nil {
		return pathFinding(c.Program(), name, err)
	}
	fi, err := os.Lstat(filepath.Join(dir, last))
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return refuse(CodeBadUsage, "name the file the link points to",
			"sed -i %s: it is a symbolic link, which sed -i would replace with a regular file", name)
	}
	return nil
}

// checkSedScript parses a whole script and checks each command that runs,
// reads or writes something. posix is --posix, under which sed opens
// /dev/stdout and /dev/stderr as ordinary files.
func checkSedScript(c *Call, script string, posix bool) error {
	cmds, err := parseSed(script)
	if err != nil {
		return err
	}
	for _, cmd := range cmds {
		switch {
		case cmd.exec && cmd.name == 's':
			return refuse(CodeForbiddenFlag, "drop the e flag; run the command itself instead",
				"sed: the e flag of s runs the pattern space as a shell command")
		case cmd.exec && cmd.text != "":
			return refuse(CodeForbiddenFlag, "run the command itself instead of through sed's e",
				"sed: the e command runs a shell command (%s)", cmd.text)
		case cmd.exec:
			return refuse(CodeForbiddenFlag, "run the command itself instead of through sed's e",
				"sed: the e command runs the pattern space as a shell command")
		case cmd.name == 'r' || cmd.name == 'R':
			if cmd.file == "/dev/stdin" {
				continue // sed reads its standard input
			}
			if err := c.ReadPath(cmd.file, false); err != nil {
				return err
			}
		case cmd.file != "": // w, W, s///w
			if !posix && (cmd.file == "/dev/stdout" || cmd.file == "/dev/stderr") {
				continue // sed writes to its own output
			}
			if err := c.WritePath(cmd.file); err != nil {
				return err
			}
		}
	}
	return nil
}

// sedCmd is one command of a parsed sed script.
type sedCmd struct {
	name byte   // the command letter
	file string // r, R, w, W and s///w: the file name
	exec bool   // e, or s with the e flag: runs a shell command
	text string // a, i, c, e: the text; :, b, t, T: the label
}

// parseSed parses a script as GNU sed 4.9's compiler does and returns its
// commands in order, or a Finding saying where it could not.
func parseSed(script string) ([]sedCmd, error) {
	p := &sedParser{src: script}
	if err := p.program(); err != nil {
		return nil, err
	}
	return p.cmds, nil
}

const sedEOF = -1

// sedParser mirrors compile.c: inchar, savchar and inNonblank read the
// script a byte at a time, and each method follows the C function of the
// same name (program is compile_program, address compile_address,
// substitute the s case and mark_subst_opts).
type sedParser struct {
	src    string
	pos    int
	blocks int
	cmds   []sedCmd
}

// sedAddr is the kind of an address, as far as the parser needs it.
type sedAddr int

const (
	addrNone  sedAddr = iota
	addrNull          // +0 or ~0: an address that matches nothing
	addrNum           // a line number; n is the number
	addrStep          // first~step
	addrRel           // +N or ~N, only valid as a second address
	addrLast          // $
	addrRegex         // /re/ or \cREc
)

func (p *sedParser) inchar() int {
	if p.pos < len(p.src) {
		p.pos++
		return int(p.src[p.pos-1])
	}
	return sedEOF
}

// savchar pushes back ch, which must be the character just read.
func (p *sedParser) savchar(ch int) {
	if ch != sedEOF {
		p.pos--
	}
}

func isSedBlank(ch int) bool { return ch == ' ' || ch == '\t' }

func isSedSpace(ch int) bool {
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' || ch == '\f' || ch == '\r'
}

func isSedDigit(ch int) bool { return ch >= '0' && ch <= '9' }

func (p *sedParser) inNonblank() int {
	ch := p.inchar()
	for isSedBlank(ch) {
		ch = p.inchar()
	}
	return ch
}

// inInteger reads the digits starting with ch. It saturates instead of
// overflowing, as sed does.
func (p *sedParser) inInteger(ch int) int64 {
	var n int64
	for isSedDigit(ch) {
		if n < 1e15 {
			n = n*10 + int64(ch-'0')
		}
		ch = p.inchar()
	}
	p.savchar(ch)
	return n
}

func (p *sedParser) fail(format string, args ...any) error {
	return refuse(CodeBadUsage, "fix the sed script; vtexec reads it as GNU sed 4.9 does and allows only scripts it can parse",
		"sed: char %d: %s", p.pos, fmt.Sprintf(format, args...))
}

// readEndOfCmd accepts what may follow a command: blanks, then a newline,
// ";", "}" or "#" (the last two are left for the next command), or the end.
func (p *sedParser) readEndOfCmd() error {
	ch := p.inNonblank()
	switch ch {
	case '}', '#':
		p.savchar(ch)
	case sedEOF, '\n', ';':
	default:
		return p.fail("extra characters after command")
	}
	return nil
}

func (p *sedParser) program() error {
	for {
		ch := p.inchar()
		for ch == ';' || isSedSpace(ch) {
			ch = p.inchar()
		}
		if ch == sedEOF {
			break
		}
		a1, n1, ok, err := p.address(ch)
		if err != nil {
			return err
		}
		var a2 = addrNone
		if ok {
			if a1 == addrRel {
				return p.fail("invalid usage of +N or ~N as first address")
			}
			ch = p.inNonblank()
			if ch == ',' {
				a2, _, ok, err = p.address(p.inNonblank())
				if err != nil {
					return err
				}
				if !ok {
					return p.fail("unexpected ','")
				}
				ch = p.inNonblank()
			}
			if a1 == addrNum && n1 == 0 && ((a2 == addrNone && ch != 'r') || (a2 != addrNone && a2 != addrRegex)) {
				return p.fail("invalid usage of line address 0")
			}
		}
		if ch == '!' {
			ch = p.inNonblank()
			if ch == '!' {
				return p.fail("multiple '!'s")
			}
		}
		if err := p.command(ch, a1 != addrNone, a2 != addrNone); err != nil {
			return err
		}
	}
	if p.blocks > 0 {
		return p.fail("unmatched '{'")
	}
	return nil
}

// command parses the command whose letter ch has just been read.
func (p *sedParser) command(ch int, hasAddr, twoAddrs bool) error {
	cmd := sedCmd{name: byte(ch)}
	switch ch {
	case sedEOF:
		return p.fail("missing command")
	case '#':
		if hasAddr {
			return p.fail("comments don't accept any addresses")
		}
		for ch != sedEOF && ch != '\n' {
			ch = p.inchar()
		}
		return nil
	case 'v':
		p.readLabel()
		return nil
	case '{':
		p.blocks++
	case '}':
		if p.blocks == 0 {
			return p.fail("unexpected '}'")
		}
		if hasAddr {
			return p.fail("'}' doesn't want any addresses")
		}
		if err := p.readEndOfCmd(); err != nil {
			return err
		}
		p.blocks--
	case 'e':
		cmd.exec = true
		ch = p.inNonblank()
		if ch != sedEOF && ch != '\n' {
			text, err := p.readTextToSlash(ch)
			if err != nil {
				return err
			}
			cmd.text = text
		}
	case 'a', 'i', 'c':
		text, err := p.readTextToSlash(p.inNonblank())
		if err != nil {
			return err
		}
		cmd.text = text
	case ':':
		if hasAddr {
			return p.fail(": doesn't want any addresses")
		}
		cmd.text = p.readLabel()
		if cmd.text == "" {
			return p.fail("\":\" lacks a label")
		}
	case 'b', 't', 'T':
		cmd.text = p.readLabel()
	case 'q', 'Q', 'l':
		if ch != 'l' && twoAddrs {
			return p.fail("command only uses one address")
		}
		if ch = p.inNonblank(); isSedDigit(ch) {
			p.inInteger(ch)
		} else {
			p.savchar(ch)
		}
		if err := p.readEndOfCmd(); err != nil {
			return err
		}
	case '=', 'd', 'D', 'F', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'z', 'x':
		if err := p.readEndOfCmd(); err != nil {
			return err
		}
	case 'r', 'R', 'w', 'W':
		cmd.file = p.readFilename()
		if cmd.file == "" {
			return p.fail("missing filename in r/R/w/W commands")
		}
	case 's':
		if err := p.substitute(&cmd); err != nil {
			return err
		}
	case 'y':
		slash := p.inchar()
		for i := 0; i < 2; i++ {
			if _, ok, err := p.matchSlash(slash, false); err != nil {
				return err
			} else if !ok {
				return p.fail("unterminated 'y' command")
			}
		}
		if err := p.readEndOfCmd(); err != nil {
			return err
		}
	default:
		// L parses in 4.9 but has been removed from sed; it is refused too.
		return p.fail("unknown command: %q", string(rune(ch)))
	}
	p.cmds = append(p.cmds, cmd)
	return nil
}

// address reads an address starting with ch. ok is false, with nothing
// read, when ch does not start one. n is the line number of addrNum.
func (p *sedParser) address(ch int) (kind sedAddr, n int64, ok bool, err error) {
	switch {
	case ch == '/' || ch == '\\':
		if ch == '\\' {
			ch = p.inchar()
		}
		if _, ok, err := p.matchSlash(ch, true); err != nil {
			return 0, 0, false, err
		} else if !ok {
			return 0, 0, false, p.fail("unterminated address regex")
		}
		for {
			ch = p.inNonblank()
			if ch != 'I' && ch != 'M' {
				p.savchar(ch)
				return addrRegex, 0, true, nil
			}
		}
	case isSedDigit(ch):
		n = p.inInteger(ch)
		if ch = p.inNonblank(); ch != '~' {
			p.savchar(ch)
			return addrNum, n, true, nil
		}
		if p.inInteger(p.inNonblank()) > 0 {
			return addrStep, n, true, nil
		}
		return addrNum, n, true, nil
	case ch == '+' || ch == '~':
		if p.inInteger(p.inNonblank()) == 0 {
			return addrNull, 0, true, nil
		}
		return addrRel, 0, true, nil
	case ch == '$':
		return addrLast, 0, true, nil
	}
	return addrNone, 0, false, nil
}

// matchSlash reads up to the closing delimiter slash and returns what lies
// between; ok is false when the line or script ends first. In a regex a
// bracket expression is read whole, so the delimiter may appear in it.
func (p *sedParser) matchSlash(slash int, regex bool) (string, bool, error) {
	if slash > 0x7f {
		// Whether sed takes a non-ASCII byte as a delimiter depends on the
		// locale, so vtexec cannot know where the command ends.
		return "", false, p.fail("use an ASCII delimiter")
	}
	var b strings.Builder
	ch := p.inchar()
	for ; ch != sedEOF && ch != '\n'; ch = p.inchar() {
		switch {
		case ch == slash:
			return b.String(), true, nil
		case ch == '\\':
			ch = p.inchar()
			if ch == sedEOF {
				return "", false, nil
			}
			if ch != '\n' && (ch != slash || (!regex && ch == '&')) {
				b.WriteByte('\\')
			}
			if regex && ch == 'c' {
				// Newer seds read \c and the character after it as one
				// escape; 4.9 reads the character on its own. Refuse where
				// that changes where the regex ends.
				if next := p.peek(); next == slash || next == '\\' || next == '[' {
					return "", false, p.fail(`\c before the delimiter, "\\" or "[" is read differently by different sed versions`)
				}
			}
		case ch == '[' && regex:
			b.WriteByte('[')
			ch = p.snarfCharClass(&b)
			if ch != ']' {
				return "", false, p.unterminated(ch)
			}
		}
		b.WriteByte(byte(ch))
	}
	return "", false, p.unterminated(ch)
}

// unterminated ends matchSlash without a closing delimiter: ok false, and
// a newline pushed back as sed does.
func (p *sedParser) unterminated(ch int) error {
	if ch == '\n' {
		p.savchar(ch)
	}
	return nil
}

func (p *sedParser) peek() int {
	if p.pos < len(p.src) {
		return int(p.src[p.pos])
	}
	return sedEOF
}

// snarfCharClass reads a bracket expression after its "[", including
// [:class:], [.coll.] and [=equiv=] inside it, and returns the character
// that ended it: "]" or, unterminated, a newline or the end.
func (p *sedParser) snarfCharClass(b *strings.Builder) int {
	addThenNext := func(ch int) int {
		b.WriteByte(byte(ch))
		return p.inchar()
	}
	ch := p.inchar()
	if ch == '^' {
		ch = addThenNext(ch)
	}
	if ch == ']' {
		ch = addThenNext(ch)
	}
	// 0: outside [x x], 1: after "[", 2: after the opening x, 3: after the
	// closing x, where x is one of . : =
	state, delim := 0, 0
	for ; ; ch = addThenNext(ch) {
		switch ch {
		case sedEOF, '\n':
			return ch
		case '.', ':', '=':
			switch {
			case state == 1:
				delim, state = ch, 2
				continue
			case state == 2 && ch == delim:
				state = 3
				continue
			}
		case '[':
			if state == 0 {
				state = 1
			}
			continue
		case ']':
			if state == 0 || state == 1 {
				return ch
			}
			if state == 3 {
				state = 0
			}
		}
		state &^= 1
	}
}

// readTextToSlash reads the text of a, i, c (and e), whose first non-blank
// character ch has been read: "\" then text, or GNU's one-line form.
func (p *sedParser) readTextToSlash(ch int) (string, error) {
	if ch == sedEOF {
		return "", p.fail("expected \\ after 'a', 'c' or 'i'")
	}
	if ch == '\\' {
		ch = p.inchar()
	} else {
		p.savchar(ch)
		ch = '\n'
	}
	return p.readText(ch), nil
}

// readText reads text up to an unescaped newline; leadin is its first
// character, or a newline for none. A backslash escapes the next character,
// a newline included, so the text continues on the next line.
func (p *sedParser) readText(leadin int) string {
	if leadin == sedEOF {
		return ""
	}
	var b strings.Builder
	if leadin != '\n' {
		b.WriteByte(byte(leadin))
	}
	ch := p.inchar()
	for ch != sedEOF && ch != '\n' {
		if ch == '\\' {
			if ch = p.inchar(); ch == sedEOF {
				break
			}
		}
		b.WriteByte(byte(ch))
		ch = p.inchar()
	}
	return b.String()
}

// readLabel reads the label of :, b, t, T (and the version of v): blanks,
// then up to a blank, newline, ";", "}" or "#", which is left unread.
func (p *sedParser) readLabel() string {
	var b strings.Builder
	ch := p.inNonblank()
	for ch != sedEOF && ch != '\n' && !isSedBlank(ch) && ch != ';' && ch != '}' && ch != '#' {
		b.WriteByte(byte(ch))
		ch = p.inchar()
	}
	p.savchar(ch)
	return b.String()
}

// readFilename reads the file name of r, R, w, W and s///w: blanks, then
// everything up to the end of the line.
func (p *sedParser) readFilename() string {
	var b strings.Builder
	ch := p.inNonblank()
	for ch != sedEOF && ch != '\n' {
		b.WriteByte(byte(ch))
		ch = p.inchar()
	}
	return b.String()
}

// substitute parses s after its letter: delimiter, regex, replacement and
// flags (mark_subst_opts in compile.c).
func (p *sedParser) substitute(cmd *sedCmd) error {
	slash := p.inchar()
	if _, ok, err := p.matchSlash(slash, true); err != nil {
		return err
	} else if !ok {
		return p.fail("unterminated 's' command")
	}
	if _, ok, err := p.matchSlash(slash, false); err != nil {
		return err
	} else if !ok {
		return p.fail("unterminated 's' command")
	}
	var global, print, numbered bool
	for {
		switch ch := p.inNonblank(); {
		case ch == 'i' || ch == 'I' || ch == 'm' || ch == 'M':
		case ch == 'e':
			cmd.exec = true
		case ch == 'p':
			if print {
				return p.fail("multiple 'p' options to 's' command")
			}
			print = true
		case ch == 'g':
			if global {
				return p.fail("multiple 'g' options to 's' command")
			}
			global = true
		case ch == 'w':
			cmd.file = p.readFilename()
			if cmd.file == "" {
				return p.fail("missing filename in r/R/w/W commands")
			}
			return nil
		case isSedDigit(ch):
			if numbered {
				return p.fail("multiple number options to 's' command")
			}
			numbered = true
			if p.inInteger(ch) == 0 {
				return p.fail("number option to 's' command may not be zero")
			}
		case ch == '}' || ch == '#':
			p.savchar(ch)
			return nil
		case ch == sedEOF || ch == '\n' || ch == ';':
			return nil
		case ch == '\r' && p.inchar() == '\n':
			return nil
		default:
			return p.fail("unknown option to 's'")
		}
	}
}
