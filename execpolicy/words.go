package execpolicy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/vtexec/vtexec/validators"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/vtexec/vtexec/pathrules"
	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/workspace"
)

// globError carries a workspace refusal out of expand's ReadDir2 hook.
type globError struct{ err error }

func (g *globError) Error() string { return g.err.Error() }

// expandConfig expands words as bash would with an empty environment:
// quotes, $'…' and escapes are removed, braces expanded, "~" is the home
// directory, and globs read directories only inside the workspace.
func (c *Checker) expandConfig(ws *workspace.Workspace) *expand.Config {
	home := c.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	cwd := ws.Cwd()
	return &expand.Config{
		// The check never runs what a <(…) or >(…) would: the words are
		// known only when the command runs (the interpreter's to decide).
		ProcSubst: noProcSubst,
		Env: expand.FuncEnviron(func(name string) string {
			if v, ok := c.vars[name]; ok {
				return v
			}
			switch name {
			case "HOME":
				return home
			case "PWD":
				return cwd
			}
			return ""
		}),
		ReadDir2: func(dir string) ([]fs.DirEntry, error) {
			if e, ok := towardsRoot(dir, ws.Root()); ok {
				return []fs.DirEntry{e}, nil
			}
			real, err := ws.Resolve(dir, workspace.Read)
			if err != nil {
				return nil, &globError{err}
			}
			entries, err := os.ReadDir(real)
			if spent := ws.Spend(len(entries) + 1); spent != nil {
				return nil, spent
			}
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				// Not there (yet: mkdir d && cd d && ls *.go): the
				// pattern matches nothing and stays as typed, as in bash.
				return nil, nil
			}
			return entries, err
		},
	}
}

// towardsRoot lets an absolute glob reach the workspace ("$PWD/*.go",
// "/home/me/project/src/*"): for a directory above the root, it gives the
// one entry on the way down to it, so nothing else outside is listed.
func towardsRoot(dir, root string) (fs.DirEntry, bool) {
	if !filepath.IsAbs(dir) {
		return nil, false
	}
	dir = filepath.Clean(dir)
	prefix := dir + "/"
	if dir == "/" {
		prefix = "/"
	}
	if !strings.HasPrefix(root, prefix) || len(root) == len(prefix) {
		return nil, false
	}
	next, _, _ := strings.Cut(root[len(prefix):], "/")
	fi, err := os.Lstat(filepath.Join(dir, next))
	if err != nil {
		return nil, false
	}
	return fs.FileInfoToDirEntry(fi), true
}

// globsOutside refuses a glob that would list a directory outside the
// workspace: bash would show what is there. Every pattern component's
// directory, read lexically from the cwd (a pattern is one name, ".."
// goes up), must lie inside the root. A glob that passes lists only
// directories inside, and the directories above the root that an
// absolute pattern names are read only for their one entry on the way
// down (towardsRoot).
func (c *Checker) globsOutside(words []*syntax.Word, ws *workspace.Workspace) *Verdict {
	root := ws.Root()
	for _, w := range words {
		if !unquotedGlob(w) {
			continue
		}
		p, err := expand.Literal(c.expandConfig(ws), w)
		if err != nil {
			continue
		}
		if !filepath.IsAbs(p) {
			p = ws.Cwd() + "/" + p
		}
		parts := strings.Split(p, "/")
		for i, part := range parts {
			if !strings.ContainsAny(part, "*?[") {
				continue
			}
			dir := filepath.Clean("/" + strings.Join(parts[:i], "/"))
			if dir != root && !strings.HasPrefix(dir, root+"/") {
				return deny(string(workspace.Outside), "write a pattern that matches inside the workspace (src/*.go), or name the files",
					"the glob %q would list %s, outside the workspace", p, dir)
			}
		}
	}
	return nil
}

// unquotedGlob reports whether w has a glob character outside quotes.
func unquotedGlob(w *syntax.Word) bool { return unquotedAny(w, "*?[") }

// unquotedAny reports whether w has one of chars outside quotes.
func unquotedAny(w *syntax.Word, chars string) bool {
	for _, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok && strings.ContainsAny(l.Value, chars) {
			return true
		}
	}
	return false
}

func (c *Checker) expandWords(words []*syntax.Word, ws *workspace.Workspace) (_ []string, refused *Verdict) {
	defer recoverPattern(&refused)
	if v := pwdVerdict(words, ws.Cwd()); v != nil {
		return nil, v
	}
	if v := c.globsOutside(words, ws); v != nil {
		return nil, v
	}
	var out []string
	total := 0
	for field, err := range expand.FieldsSeq(c.expandConfig(ws), words...) {
		if spent := ws.Spent(); spent != nil {
			return nil, expandVerdict(spent)
		}
		if err != nil {
			return nil, expandVerdict(err)
		}
		total += len(field) + 1
		out = append(out, field)
		if len(out) > MaxArgs || total > MaxArgBytes {
			return nil, deny(CodeExpansion, "name fewer files, or use a directory operand", "arguments expand past %d words or %d bytes", MaxArgs, MaxArgBytes)
		}
	}
	if spent := ws.Spent(); spent != nil {
		return nil, expandVerdict(spent)
	}
	if len(out) == 0 {
		return nil, deny(CodeExpansion, "name a program to run", "the command expands to nothing")
	}
	if msysHost {
		for i := range out {
			out[i], _ = pathrules.MSYSArgument(out[i])
		}
	}
	return out, nil
}

// msysHost says that commands are typed as in Git Bash, MSYS2 or Cygwin
// on Windows: a drive path in their form (/c/x), as a whole word or an
// option's value, becomes the Windows form (C:/x) before anything is
// checked, as their runtime converts it for a native program. What is
// checked is what runs, and the plan shows it; MSYS's own programs read
// the Windows form as the same file.
var msysHost = runtime.GOOS == "windows"

// pwdVerdict refuses $PWD in words when the cwd has a byte that bash
// would split or glob on, where the expansion could differ from the
// path; elsewhere $PWD expands to the cwd, as in bash.
func pwdVerdict(words []*syntax.Word, cwd string) *Verdict {
	if !strings.ContainsAny(cwd, " \t\n*?[]{}\\'\"$`") {
		return nil
	}
	var found bool
	for _, w := range words {
		syntax.Walk(w, func(n syntax.Node) bool {
			if p, ok := n.(*syntax.ParamExp); ok && isPWD(p) {
				found = true
			}
			return !found
		})
	}
	if !found {
		return nil
	}
	return deny(CodeExpansion, "write the path relative to the cwd instead of $PWD", "$PWD is not expanded here: the cwd %q has spaces, quotes or glob characters", cwd)
}

// errProcSubst ends an expansion that meets a process substitution.
var errProcSubst = errors.New("a process substitution is known only when the command runs")

// noProcSubst is the expander's process substitution: none (expand
// calls it without looking whether it is set).
func noProcSubst(*syntax.ProcSubst) (string, error) { return "", errProcSubst }

func expandVerdict(err error) *Verdict {
	var g *globError
	var spent *workspace.BudgetError
	if errors.As(err, &spent) {
		return deny(validators.CodeCheckLimit, "match fewer files: a narrower pattern, or the directory itself", "%v: vtexec lists the directories a glob reads, and bounds that work for each request", spent)
	}
	if errors.As(err, &g) {
		v := pathVerdict("glob", "", g.err)
		v.Hint = "globs may only match inside the workspace; " + v.Hint
		return v
	}
	return deny(CodeExpansion, "write the words literally", "cannot expand: %v", err)
}

// redirects checks a command's redirections. Allowed: 2>&1, >&2 (and the
// same with an explicit 1), > >> &> &>> to /dev/null or to a writable file
// inside the workspace, and < from /dev/null or a file inside.
func (c *Checker) redirects(rs []*syntax.Redirect, ws *workspace.Workspace) ([]plan.Redirect, *Verdict) {
	var out []plan.Redirect
	for _, r := range rs {
		fd := 1
		if r.Op == syntax.RdrIn || r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc {
			fd = 0
		}
		if r.N != nil {
			n, err := strconv.Atoi(r.N.Value)
			if err != nil || n > 2 {
				return nil, deny(CodeRedirect, "redirect only 0, 1 and 2", "redirecting file descriptor %q is not allowed", r.N.Value)
			}
			fd = n
		}
		if r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc {
			if fd != 0 {
				return nil, deny(CodeRedirect, "feed a here-document to standard input (<<EOF)", "a here-document for file descriptor %d is not allowed", fd)
			}
			body, v := hereBody(r, ws.Cwd())
			if v != nil {
				return nil, v
			}
			out = append(out, plan.Redirect{Fd: 0, Kind: plan.Input, Data: body})
			continue
		}
		if r.Op == syntax.DplOut {
			target, v := c.redirectWord(r.Word, ws)
			if v != nil {
				return nil, v
			}
			if (fd != 1 && fd != 2) || (target != "1" && target != "2") {
				return nil, deny(CodeRedirect, "use 2>&1 or >&2", "redirect %d>&%s is not allowed", fd, target)
			}
			dup, _ := strconv.Atoi(target)
			out = append(out, plan.Redirect{Fd: fd, Kind: plan.Dup, DupFd: dup})
			continue
		}
		kind, all, ok := redirectKind(r.Op)
		if !ok || (kind == plan.Read) != (fd == 0) {
			return nil, deny(CodeRedirect, "use > or >> to a file inside the workspace, 2>&1, or < from a file", "redirect %s is not allowed", r.Op)
		}
		target, v := c.redirectWord(r.Word, ws)
		if v != nil {
			return nil, v
		}
		if msysHost {
			target, _ = pathrules.MSYSArgument(target) // vtexec opens it
		}
		path, v := redirectPath(target, kind, ws)
		if v != nil {
			return nil, v
		}
		out = append(out, plan.Redirect{Fd: fd, Kind: kind, Path: path})
		if all {
			out = append(out, plan.Redirect{Fd: 2, Kind: plan.Dup, DupFd: 1})
		}
	}
	return out, nil
}

// hereBody is the text a here-document or here-string feeds, exactly as
// bash would: a quoted delimiter (<<'EOF') keeps the body as it is; an
// unquoted one expands it, so its body may hold only plain text and
// $PWD (forbiddenSyntax refuses every other expansion), and no
// backslash, which bash would read as an escape there; <<- drops each
// line's leading tabs. A here-string (<<< WORD) is its word, literal,
// and a newline.
func hereBody(r *syntax.Redirect, cwd string) (string, *Verdict) {
	const quoteIt = "quote the delimiter (<<'EOF') so the text is taken as it is, or write the text to a file and pass the file"
	if r.Op == syntax.WordHdoc {
		s, ok := LiteralWord(r.Word)
		if !ok {
			return "", deny(CodeRedirect, "write the here-string literally, in quotes", "a here-string must be literal text")
		}
		return s + "\n", nil
	}
	if r.Hdoc == nil {
		return "", nil
	}
	quoted := quotedDelimiter(r.Word)
	var b strings.Builder
	for _, part := range r.Hdoc.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if !quoted && strings.ContainsRune(p.Value, '\\') {
				return "", deny(CodeRedirect, quoteIt, "a backslash in a here-document with an unquoted delimiter is an escape bash would interpret")
			}
			b.WriteString(p.Value)
		case *syntax.ParamExp:
			if quoted || !isPWD(p) {
				return "", deny(CodeExpansion, quoteIt, "a here-document may expand only $PWD")
			}
			b.WriteString(cwd)
		default:
			return "", deny(CodeExpansion, quoteIt, "a here-document may expand only $PWD")
		}
	}
	body := b.String()
	if r.Op == syntax.DashHdoc {
		lines := strings.Split(body, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimLeft(l, "\t")
		}
		body = strings.Join(lines, "\n")
	}
	return body, nil
}

// quotedDelimiter reports whether a here-document's delimiter has any
// quoting, which makes bash take the body as it is.
func quotedDelimiter(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsRune(p.Value, '\\') {
				return true
			}
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
	}
	return false
}

func redirectKind(op syntax.RedirOperator) (kind plan.RedirectKind, all, ok bool) {
	switch op {
	case syntax.RdrOut, syntax.RdrClob:
		return plan.Write, false, true
	case syntax.AppOut:
		return plan.Append, false, true
	case syntax.RdrIn:
		return plan.Read, false, true
	case syntax.RdrAll:
		return plan.Write, true, true
	case syntax.AppAll:
		return plan.Append, true, true
	}
	return 0, false, false
}

// redirectWord expands a redirect target as bash does: it must come to
// exactly one word.
func (c *Checker) redirectWord(w *syntax.Word, ws *workspace.Workspace) (string, *Verdict) {
	fields, v := c.expandWords([]*syntax.Word{w}, ws)
	if v != nil {
		return "", v
	}
	if len(fields) != 1 {
		return "", deny(CodeRedirect, "redirect to exactly one file", "ambiguous redirect: the target expands to %d words", len(fields))
	}
	return fields[0], nil
}

func redirectPath(target string, kind plan.RedirectKind, ws *workspace.Workspace) (string, *Verdict) {
	if target == "/dev/null" {
		return target, nil
	}
	access := workspace.Write
	if kind == plan.Read {
		access = workspace.Read
	}
	real, err := ws.Resolve(target, access)
	if err != nil {
		return "", pathVerdict("redirect", target, err)
	}
	if fi, err := os.Stat(real); err == nil && !fi.Mode().IsRegular() {
		return "", deny(CodeRedirect, "redirect to a regular file", "redirect target %q is not a regular file", target)
	}
	return real, nil
}
