package workspace

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// winTree is a Windows file system for the walk: entries by their path
// in upper case (NTFS compares names without case), a link's target as
// Windows' API reads it.
type winTree map[string]winEntry

type winEntry struct {
	dir    bool
	target string // a link's
}

type winInfo struct {
	name string
	e    winEntry
}

func (i winInfo) Name() string       { return i.name }
func (i winInfo) Size() int64        { return 0 }
func (i winInfo) ModTime() time.Time { return time.Time{} }
func (i winInfo) IsDir() bool        { return i.e.dir }
func (i winInfo) Sys() any           { return nil }
func (i winInfo) Mode() fs.FileMode {
	switch {
	case i.e.target != "":
		return fs.ModeSymlink
	case i.e.dir:
		return fs.ModeDir
	}
	return 0
}

// useWindows makes the walk spell and compare paths as Windows does, on
// the tree t, until the test ends.
func useWindows(t testing.TB, tree winTree) {
	oldWin, oldCase, oldLstat, oldReadlink := winPaths, caseless, lstat, readlink
	t.Cleanup(func() {
		winPaths, caseless, lstat, readlink = oldWin, oldCase, oldLstat, oldReadlink
	})
	winPaths, caseless = true, true
	lstat = func(p string) (fs.FileInfo, error) {
		if strings.Contains(p, "/") {
			return nil, &fs.PathError{Op: "lstat", Path: p, Err: errors.New("a / in a path the walk made: " + p)}
		}
		e, ok := tree[strings.ToUpper(p)]
		if !ok {
			return nil, &fs.PathError{Op: "lstat", Path: p, Err: fs.ErrNotExist}
		}
		return winInfo{p[strings.LastIndexByte(p, '\\')+1:], e}, nil
	}
	readlink = func(p string) (string, error) {
		e, ok := tree[strings.ToUpper(p)]
		if !ok || e.target == "" {
			return "", &fs.PathError{Op: "readlink", Path: p, Err: os.ErrInvalid}
		}
		return e.target, nil
	}
}

// windowsFixture is a workspace at C:\Work over a tree with links
// inside, outside and of every form.
func windowsFixture(t testing.TB) *Workspace {
	dir, file := winEntry{dir: true}, winEntry{}
	useWindows(t, winTree{
		`C:\`: dir, `C:\WORK`: dir, `C:\WORK\A.TXT`: file, `C:\WORK\SRC`: dir, `C:\WORK\SRC\MAIN.GO`: file,
		`C:\WORK\.GIT`: dir, `C:\WORK\.GIT\CONFIG`: file, `C:\SECRET`: dir, `C:\SECRET\KEY`: file,
		`C:\WORK\OUT`:      {target: `C:\secret`},
		`C:\WORK\JUNCTION`: {target: `\??\C:\Secret`},
		`C:\WORK\UP`:       {target: `..\secret`},
		`C:\WORK\ROOTED`:   {target: `\secret`},
		`C:\WORK\SHARE`:    {target: `\\server\share\x`},
		`C:\WORK\INSIDE`:   {target: `src`},
		`C:\WORK\DEVICE`:   {target: `\\.\PhysicalDrive0`},
		`C:\WORK\SRC\CFG`:  {target: `..\.git\config`},
		`C:\WORK\LOOP`:     {target: `loop\x`},
	})
	return &Workspace{root: `C:\Work`, cwd: `C:\Work`, askNames: DefaultAskNames, linked: &linkedSet{}}
}

// On Windows the workspace walks drive and share paths, either slash, in
// any case; takes ".." by the text as Windows does; follows links and
// junctions, whatever form their target reads in; and refuses what a
// native program would read as another place than the one checked.
func TestWindowsPathsResolveAsWindowsReadsThem(t *testing.T) {
	w := windowsFixture(t)

	for p, want := range map[string]string{
		"a.txt":                 `C:\Work\a.txt`,
		"src/main.go":           `C:\Work\src\main.go`,
		"C:/Work/a.txt":         `C:\Work\a.txt`,
		"c:/WORK/a.txt":         `C:\WORK\a.txt`,
		"src/../a.txt":          `C:\Work\a.txt`,
		"out/../a.txt":          `C:\Work\a.txt`, // by the text: out's target is never visited
		"inside/main.go":        `C:\Work\src\main.go`,
		"src/new/file.go":       `C:\Work\src\new\file.go`,
		"./src/./main.go":       `C:\Work\src\main.go`,
		"C:/Work/src/new/x/y.z": `C:\Work\src\new\x\y.z`,
	} {
		got, err := w.Resolve(p, Read)
		if assert.NoError(t, err, p) {
			assert.True(t, strings.EqualFold(want, got), "%s: %s, want %s", p, got, want)
		}
	}

	refused := map[string]Code{
		"out/key":           Outside,
		"junction/key":      Outside,
		"up/key":            Outside,
		"rooted/key":        Outside,
		"share/y":           Outside,
		"device":            Invalid,
		"../secret/key":     Outside,
		"C:/secret/key":     Outside,
		"D:/work/a.txt":     Outside,
		"//server/share/x":  Outside,
		"/c/Work/a.txt":     Invalid, // a native program reads it as \c\Work on the current drive
		"/usr/bin/env":      Invalid,
		"C:a.txt":           Invalid,
		"//?/C:/Work/a.txt": Invalid,
		"a.txt:stream":      Invalid,
		"src/NUL":           Invalid,
		"PROGRA~1/x":        Invalid,
		// Backslashes: bash reads an unquoted one as an escape, and the
		// validators split names at /.
		`src\main.go`:   Invalid,
		`C:\Work\a.txt`: Invalid,
		`src\..\..\x`:   Invalid,
		`\Work\a.txt`:   Invalid,
	}
	for p, code := range refused {
		_, err := w.Resolve(p, Read)
		var be *BoundaryError
		if assert.True(t, errors.As(err, &be), "%s: %v", p, err) {
			assert.Equal(t, code, be.Code, "%s: %s", p, be.Reason)
		}
	}

	for _, p := range []string{".git/config", ".GIT/Config", "src/cfg", "SRC/.Git/hooks/x"} {
		_, err := w.Resolve(p, Write)
		var be *BoundaryError
		if assert.True(t, errors.As(err, &be), "%s: %v", p, err) {
			assert.Equal(t, Protected, be.Code, "%s: %s", p, be.Reason)
		}
	}
	_, err := w.Resolve("src/main.go", Write)
	assert.NoError(t, err)

	require.NoError(t, w.Chdir("src"))
	got, err := w.Resolve("../a.txt", Read)
	require.NoError(t, err)
	assert.Equal(t, `C:\Work\a.txt`, got)
}

// Whatever an operand is, on Windows a path the workspace accepts is in
// it, in Windows' spelling, clean.
func FuzzResolveWindows(f *testing.F) {
	for _, seed := range []string{"a.txt", "out/key", "../x", "/c/Work", "C:/Work/src/../a.txt", "//?/C:/x", "loop/y", "inside/../../secret", "C:/Work//src/./main.go", "junction/key", `src\..\a.txt`} {
		f.Add(seed)
	}
	w := windowsFixture(f)
	f.Fuzz(func(t *testing.T, p string) {
		for _, access := range []Access{Read, Write} {
			real, err := w.Resolve(p, access)
			if err != nil {
				var be *BoundaryError
				if !errors.As(err, &be) {
					t.Fatalf("%q: not a BoundaryError: %v", p, err)
				}
				continue
			}
			rel, ok := relTo(w.root, real)
			if !ok || strings.Contains(real, "/") || !isAbs(real) {
				t.Fatalf("%q resolved to %q, not a Windows path in %s", p, real, w.root)
			}
			for _, c := range strings.Split(rel, "/") {
				if c == ".." || c == "." {
					t.Fatalf("%q resolved to %q, which is not clean", p, real)
				}
			}
		}
	})
}
