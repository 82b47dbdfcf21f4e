package validators

// rg (ripgrep 14). Like grep, everything but the pattern is read: the
// operands, -f and --ignore-file. -r/--replace only changes what rg prints;
// rg never writes files. Refused: the flags that run programs (--pre and
// its --pre-glob, -z which runs decompressors, --hostname-bin). With -L,
// which follows symbolic links, every link in the trees searched must lead
// inside the workspace.
//
// rg also reads a config file named by RIPGREP_CONFIG_PATH; vtexec's fixed
// environment must not set it.

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/vtexec/vtexec/workspace"
)

const rgRunsPrograms = "runs a program on the files rg searches"

var rgSpec = &Spec{Name: "rg", Adjust: rgStopAtRoot, Doc: "PATTERN (unless -e/-f/--files/--type-list) then files and directories to search, confined; with -L, every symbolic link in them too", Operands: rgOperands, Flags: []Flag{
	// Input.
	{Short: "e", Long: "regexp", Arg: Text, Pattern: true},
	{Short: "f", Long: "file", Arg: ReadPath, Pattern: true},
	{Long: "pre", Arg: Text, Forbid: rgRunsPrograms}, {Long: "no-pre"},
	{Long: "pre-glob", Arg: Text, Forbid: "chooses the files --pre runs a program on"},
	{Short: "z", Long: "search-zip", Forbid: "runs decompression programs (gzip, xz, ...) on the files rg searches"},
	{Long: "no-search-zip"},
	// Search.
	{Short: "s", Long: "case-sensitive"}, {Short: "i", Long: "ignore-case"}, {Short: "S", Long: "smart-case"},
	{Long: "crlf"}, {Long: "no-crlf"}, {Long: "dfa-size-limit", Arg: Number},
	{Short: "E", Long: "encoding", Arg: Text}, {Long: "no-encoding"}, {Long: "engine", Arg: Text},
	{Short: "F", Long: "fixed-strings"}, {Long: "no-fixed-strings"},
	{Short: "v", Long: "invert-match"}, {Long: "no-invert-match"},
	{Short: "x", Long: "line-regexp"}, {Short: "w", Long: "word-regexp"},
	{Short: "m", Long: "max-count", Arg: Number}, {Long: "mmap"}, {Long: "no-mmap"},
	{Short: "U", Long: "multiline"}, {Long: "no-multiline"},
	{Long: "multiline-dotall"}, {Long: "no-multiline-dotall"},
	{Long: "unicode"}, {Long: "no-unicode"}, {Long: "pcre2-unicode"}, {Long: "no-pcre2-unicode"},
	{Long: "null-data"}, {Short: "P", Long: "pcre2"}, {Long: "no-pcre2"},
	{Long: "auto-hybrid-regex"}, {Long: "no-auto-hybrid-regex"},
	{Long: "regex-size-limit", Arg: Number}, {Long: "stop-on-nonmatch"},
	{Short: "a", Long: "text"}, {Long: "no-text"}, {Long: "binary"}, {Long: "no-binary"},
	{Short: "j", Long: "threads", Arg: Number},
	// Filtering.
	{Short: "L", Long: "follow"}, {Long: "no-follow"},
	{Short: "g", Long: "glob", Arg: Text}, {Long: "iglob", Arg: Text},
	{Long: "glob-case-insensitive"}, {Long: "no-glob-case-insensitive"},
	{Short: ".", Long: "hidden"}, {Long: "no-hidden"},
	{Long: "ignore-file", Arg: ReadPath},
	{Long: "ignore-file-case-insensitive"}, {Long: "no-ignore-file-case-insensitive"},
	{Short: "d", Long: "max-depth", Arg: Number}, {Long: "maxdepth", Arg: Number},
	{Long: "max-filesize", Arg: Number},
	{Long: "no-ignore"}, {Long: "ignore"}, {Long: "no-ignore-dot"}, {Long: "ignore-dot"},
	{Long: "no-ignore-exclude"}, {Long: "ignore-exclude"}, {Long: "no-ignore-files"}, {Long: "ignore-files"},
	{Long: "no-ignore-global"}, {Long: "ignore-global"}, {Long: "no-ignore-parent"}, {Long: "ignore-parent"},
	{Long: "no-ignore-vcs"}, {Long: "ignore-vcs"}, {Long: "no-require-git"}, {Long: "require-git"},
	{Long: "one-file-system"}, {Long: "no-one-file-system"},
	{Short: "t", Long: "type", Arg: Text}, {Short: "T", Long: "type-not", Arg: Text},
	{Long: "type-add", Arg: Text}, {Long: "type-clear", Arg: Text},
	{Short: "u", Long: "unrestricted"},
	// Output.
	{Short: "A", Long: "after-context", Arg: Number}, {Short: "B", Long: "before-context", Arg: Number},
	{Short: "C", Long: "context", Arg: Number},
	{Long: "block-buffered"}, {Long: "no-block-buffered"}, {Long: "line-buffered"}, {Long: "no-line-buffered"},
	{Short: "b", Long: "byte-offset"}, {Long: "no-byte-offset"},
	{Long: "color", Arg: Text}, {Long: "colors", Arg: Text},
	{Long: "column"}, {Long: "no-column"},
	{Long: "context-separator", Arg: Text}, {Long: "no-context-separator"},
	{Long: "field-context-separator", Arg: Text}, {Long: "field-match-separator", Arg: Text},
	{Long: "heading"}, {Long: "no-heading"},
	{Long: "hostname-bin", Arg: Text, Forbid: "runs a program to get the host name"},
	{Long: "hyperlink-format", Arg: Text},
	{Long: "include-zero"}, {Long: "no-include-zero"},
	{Short: "n", Long: "line-number"}, {Short: "N", Long: "no-line-number"},
	{Short: "M", Long: "max-columns", Arg: Number}, {Long: "max-columns-preview"}, {Long: "no-max-columns-preview"},
	{Short: "0", Long: "null"}, {Short: "o", Long: "only-matching"},
	{Long: "path-separator", Arg: Text}, {Long: "passthru"}, {Long: "passthrough"},
	{Short: "p", Long: "pretty"}, {Short: "q", Long: "quiet"},
	{Short: "r", Long: "replace", Arg: Text},
	{Long: "sort", Arg: Text}, {Long: "sortr", Arg: Text}, {Long: "sort-files"}, {Long: "no-sort-files"},
	{Long: "trim"}, {Long: "no-trim"}, {Long: "vimgrep"},
	{Short: "H", Long: "with-filename"}, {Short: "I", Long: "no-filename"},
	{Short: "c", Long: "count"}, {Long: "count-matches"},
	{Short: "l", Long: "files-with-matches"}, {Long: "files-without-match"},
	{Long: "json"}, {Long: "no-json"},
	// Logging.
	{Long: "debug"}, {Long: "trace"}, {Long: "no-ignore-messages"}, {Long: "ignore-messages"},
	{Long: "no-messages"}, {Long: "messages"}, {Long: "stats"}, {Long: "no-stats"},
	// Other behaviours.
	{Long: "files"}, {Long: "generate", Arg: Text}, {Long: "no-config"},
	{Long: "pcre2-version"}, {Long: "type-list"},
	{Short: "h", Long: "help"}, {Short: "V", Long: "version"},
}}

// rgOperands are rg's operands: a pattern unless -e/-f gave one or
// --files/--type-list need none.
func rgOperands(c *Call, a *Args) error { return searchOperands(c, a, "files", "type-list") }

func registerRg() { registerSpec(rgSpec) }

// rgIgnoreFiles are the files rg reads in every directory above what it
// searches: .ignore and .rgignore always, .gitignore inside a repository.
var rgIgnoreFiles = []string{".ignore", ".rgignore", ".gitignore"}

// rgStopAtRoot adds --no-ignore-parent to an rg command when a directory
// above the workspace root holds an ignore file: rg would read it and
// leave out what it names, so the answer would depend on a file outside.
// (Searching a directory below the root then also leaves out the root's
// own ignore files: rg has no flag that stops the climb at a given
// directory.) The flag goes last, or before "--", so it wins over an
// --ignore-parent given earlier.
func rgStopAtRoot(argv []string, ws *workspace.Workspace) []string {
	if ws == nil || !ignoreFileAbove(ws.Root()) {
		return argv
	}
	for i, a := range argv {
		if a == "--" {
			out := append(slices.Clone(argv[:i]), "--no-ignore-parent")
			return append(out, argv[i:]...)
		}
	}
	return append(slices.Clone(argv), "--no-ignore-parent")
}

// ignoreFileAbove reports whether a directory above root holds one of
// rgIgnoreFiles.
func ignoreFileAbove(root string) bool {
	for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
		for _, name := range rgIgnoreFiles {
			if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
				return true
			}
		}
		if dir == "/" || dir == "." {
			return false
		}
	}
}
