package validators

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestJq(t *testing.T) {
	ws := searchWorkspace(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws.Root(), "data.json"), []byte(`{"a":1}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws.Root(), "prog.jq"), []byte(".a\n"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(ws.Root(), "lib"), 0o755))
	runSearchCases(t, ws, []searchCase{
		{[]string{"jq", "."}, ""},
		{[]string{"jq"}, ""}, // jq runs "." on standard input
		{[]string{"jq", ".a", "data.json"}, ""},
		{[]string{"jq", "-r", ".[] | .name", "data.json", "file.txt"}, ""},
		{[]string{"jq", "-nr", `"x"`}, ""},
		{[]string{"jq", "-rcSM", ".", "-"}, ""},
		{[]string{"jq", ".", "data.json", "-c"}, ""}, // options after operands
		{[]string{"jq", "-s", "map(.a) | add", "data.json", "data.json"}, ""},
		{[]string{"jq", "--slurp", "--raw-input", "--compact-output", "--tab", ".", "data.json"}, ""},
		{[]string{"jq", "--indent", "4", "--sort-keys", "--ascii-output", ".", "data.json"}, ""},
		{[]string{"jq", "-e", "--seq", "--stream", "--unbuffered", "-j", "-C", ".", "data.json"}, ""},
		{[]string{"jq", "--raw-output0", "--stream-errors", "--exit-status", ".", "data.json"}, ""},
		{[]string{"jq", "--arg", "x", "/etc/passwd", "-n", "$x"}, ""},             // a string, never opened
		{[]string{"jq", "--argjson", "n", "5", "-n", "$n + 1"}, ""},               // JSON text
		{[]string{"jq", "--arg", "--args", "-f", "-n", "$ARGS"}, ""},              // --arg takes two words whatever they are
		{[]string{"jq", "--slurpfile", "d", "data.json", "-n", "$d"}, ""},         // read, confined
		{[]string{"jq", "--rawfile", "t", "file.txt", "-n", "$t"}, ""},            // read, confined
		{[]string{"jq", "--argfile", "d", "data.json", "-n", "$d"}, ""},           // jq 1.6
		{[]string{"jq", "-n", "$ARGS", "--args", "a", "/etc/passwd", "../x"}, ""}, // strings, not files
		{[]string{"jq", "-n", "$ARGS", "--jsonargs", "1", `{"a":2}`}, ""},
		{[]string{"jq", "--args", "-n", "$ARGS.positional", "x"}, ""},
		{[]string{"jq", ".", "--", "data.json"}, ""},
		{[]string{"jq", "--", ".", "data.json"}, ""},
		{[]string{"jq", "-n", "--args", "$ARGS", "--", "-n", "--rawfile"}, ""}, // after --, all operands
		{[]string{"jq", "-L", "lib", "-n", "1"}, ""},
		{[]string{"jq", "-Llib", "-n", "1"}, ""},
		{[]string{"jq", "-nLlib", "1"}, ""},
		{[]string{"jq", "--library-path", "lib", "-n", "1"}, ""},
		{[]string{"jq", "-n", "1", "-1"}, ""}, // not an option to jq: an input file named -1
		{[]string{"jq", "-n", "$__loc__, input_filename, env.HOME, $ENV.PATH"}, ""},
		{[]string{"jq", "-n", "def f: 1; f"}, ""},
		{[]string{"jq", "-n", "# comment\n.a"}, ""},
		{[]string{"jq", "-n", "# a\\\\\n.a"}, ""}, // an even run of backslashes ends the comment everywhere
		{[]string{"jq", `.import, .include, {module: 1}, "import"`, "data.json"}, ""},
		{[]string{"jq", "importx", "data.json"}, ""},
		{[]string{"jq", "--debug-dump-disasm", "--debug-trace", "--debug-trace=all", "-n", "1"}, ""},
		{[]string{"jq", "--help"}, ""},
		{[]string{"jq", "-h"}, ""},
		{[]string{"jq", "-V"}, ""},
		{[]string{"jq", "--version"}, ""},
		{[]string{"jq", "--build-configuration"}, ""},

		// Input files and data files are confined.
		{[]string{"jq", ".", "/etc/passwd"}, codeOutside},
		{[]string{"jq", ".", "data.json", "out/passwd"}, codeOutside},
		{[]string{"jq", "--", ".", "../x"}, codeOutside},
		{[]string{"jq", "-n", "$ARGS", "--args", "a", "--", "x", "--jsonargs"}, ""},
		{[]string{"jq", "-n", ".", "--args", "a", "--jsonargs", "1", "--args", "/etc/x"}, ""},
		{[]string{"jq", ".", "--args", "a", "--jsonargs", "--indent", "2"}, ""},
		{[]string{"jq", "--slurpfile", "d", "/etc/passwd", "-n", "$d"}, codeOutside},
		{[]string{"jq", "--rawfile", "t", "out/shadow", "-n", "$t"}, codeOutside},
		{[]string{"jq", "--argfile", "d", "../x.json", "-n", "$d"}, codeOutside},
		{[]string{"jq", "-L", "/usr/share", "-n", "1"}, codeOutside},
		{[]string{"jq", "-L/etc", "-n", "1"}, codeOutside},
		{[]string{"jq", "-nL", "..", "1"}, codeOutside},
		{[]string{"jq", "--library-path", "out", "-n", "1"}, codeOutside},

		// Modules and the program file.
		{[]string{"jq", "-n", `import "conf" as $c {search: "/home/u"}; $c`}, CodeForbiddenFlag},
		{[]string{"jq", "-n", `include "m" {search: "/tmp"}; f`}, CodeForbiddenFlag},
		{[]string{"jq", "-n", `  import "m" as m; m::f`}, CodeForbiddenFlag},
		{[]string{"jq", "-n", "# c\nimport \"m\" as m; 1"}, CodeForbiddenFlag},
		{[]string{"jq", "-n", `module {}; import "m" as m; 1`}, CodeForbiddenFlag},
		{[]string{"jq", "-n", "\timport\"m\" as m;1"}, CodeForbiddenFlag},
		{[]string{"jq", "--args", "-n", `include "x"; 1`, "y"}, CodeForbiddenFlag},
		{[]string{"jq", "--", `import "x" as $x; $x`, "data.json"}, CodeForbiddenFlag},
		{[]string{"jq", "-n", `"m" | modulemeta`}, CodeForbiddenFlag},
		{[]string{"jq", "-n", `def f: modulemeta; "m" | f`}, CodeForbiddenFlag},
		{[]string{"jq", "-n", "# c \\\nimport \"m\" as m; 1"}, CodeBadUsage}, // 1.6 imports, 1.7.1 comments it out
		{[]string{"jq", "-n", "# c\r\nimport \"m\" as m; 1"}, CodeBadUsage},
		{[]string{"jq", "-n", "\ufeffimport \"m\" as m; 1"}, CodeBadUsage},
		{[]string{"jq", "-f", "prog.jq", "data.json"}, CodeForbiddenFlag},
		{[]string{"jq", "--from-file", "prog.jq"}, CodeForbiddenFlag},
		{[]string{"jq", "-nf", "prog.jq"}, CodeForbiddenFlag},
		{[]string{"jq", "--run-tests", "tests.txt"}, CodeForbiddenFlag},

		// Flags.
		{[]string{"jq", "--raw", ".", "data.json"}, CodeUnknownFlag},
		{[]string{"jq", "--indent=2", ".", "data.json"}, CodeUnknownFlag}, // jq has no --name=value
		{[]string{"jq", "-x", ".", "data.json"}, CodeUnknownFlag},
		{[]string{"jq", "-rx", ".", "data.json"}, CodeUnknownFlag},
		{[]string{"jq", "-b", ".", "data.json"}, CodeUnknownFlag},
		{[]string{"jq", "--arg", "x"}, CodeBadUsage},
		{[]string{"jq", "--slurpfile", "d"}, CodeBadUsage},
		{[]string{"jq", "--indent"}, CodeBadUsage},
		{[]string{"jq", "-L"}, CodeBadUsage},
	})
}

func TestJqFirstToken(t *testing.T) {
	for in, want := range map[string]string{
		"":                   "",
		".":                  "",
		"  .a":               "",
		"import \"x\" as x;": "import",
		"\n\t include\"x\";": "include",
		"#x\n#y\nmodule {};": "module",
		"import::f":          "import",
		"def f: 1; f":        "def",
		"$x":                 "",
		"[.[] | select(.a)]": "",
		"# only a comment":   "",
	} {
		got, err := jqFirstToken(in)
		require.NoError(t, err, "%q", in)
		if got != want {
			t.Errorf("jqFirstToken(%q) = %q, want %q", in, got, want)
		}
	}
}
