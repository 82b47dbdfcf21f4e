package validators

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec/workspace"
)

func TestPathnames(t *testing.T) {
	ws := searchWorkspace(t)
	// deep -> src/sub: through the link, deep/../.. is the root; as written
	// (realpath -s, -L) it is the root's parent.
	require.NoError(t, os.MkdirAll(filepath.Join(ws.Root(), "src", "sub"), 0o755))
	require.NoError(t, os.Symlink("src/sub", filepath.Join(ws.Root(), "deep")))
	codeBadPath := string(workspace.Invalid)
	runSearchCases(t, ws, []searchCase{
		// basename and dirname only cut strings.
		{splitArgv("basename /etc/passwd"), ""},
		{splitArgv("basename src/a.txt .txt"), ""},
		{splitArgv("basename -a -s .go ../x.go /y.go"), ""},
		{splitArgv("basename --multiple --suffix=.c -z a.c b.c"), ""},
		{splitArgv("basename x -a"), ""}, // options end at the first operand: "-a" is the suffix
		{splitArgv("basename -- -x"), ""},
		{splitArgv("basename --help"), ""},
		{splitArgv("basename -q x"), CodeUnknownFlag},
		{splitArgv("basename --suf=x y"), CodeUnknownFlag},
		{splitArgv("dirname /usr/bin/ ../../x"), ""},
		{splitArgv("dirname -z a/b --zero"), ""},
		{splitArgv("dirname -a x"), CodeUnknownFlag},

		// realpath resolves names inside the workspace only.
		{splitArgv("realpath file.txt src/a.txt ."), ""},
		{splitArgv("realpath link.txt"), ""},
		{splitArgv("realpath -m not/yet/there"), ""},
		{splitArgv("realpath -e -q -z file.txt"), ""},
		{splitArgv("realpath -s src/../file.txt"), ""},
		{splitArgv("realpath --relative-to=src file.txt"), ""},
		{splitArgv("realpath --relative-base . --no-symlinks -L -P file.txt"), ""},
		{splitArgv("realpath deep/../file.txt"), ""},
		{splitArgv("realpath -"), ""}, // a file named "-"
		{splitArgv("realpath /etc/passwd"), codeOutside},
		{splitArgv("realpath out"), codeOutside},
		{splitArgv("realpath -s out/x"), codeOutside},
		{splitArgv("realpath .."), codeOutside},
		{splitArgv("realpath -s deep/../../x"), codeOutside}, // inside through the link, outside as written
		{splitArgv("realpath -m missing/../../x"), codeBadPath},
		{splitArgv("realpath --relative-to=/ file.txt"), codeOutside},
		{splitArgv("realpath --relative-base=.. file.txt"), codeOutside},
		{splitArgv("realpath --relative-to=deep/../.. file.txt"), codeOutside},
		{splitArgv("realpath --relative file.txt"), CodeUnknownFlag},
		{splitArgv("realpath -E file.txt"), CodeUnknownFlag},

		// readlink prints a link's target, or canonicalizes.
		{splitArgv("readlink link.txt"), ""},
		{splitArgv("readlink -f deep/../file.txt"), ""},
		{splitArgv("readlink -nvz -e file.txt"), ""},
		{splitArgv("readlink -m new/file"), ""},
		{splitArgv("readlink out"), codeOutside}, // its target is outside: refused, not printed
		{splitArgv("readlink -f out/passwd"), codeOutside},
		{splitArgv("readlink -f /etc/alternatives/editor"), codeOutside},
		{splitArgv("readlink ../x"), codeOutside},
		{splitArgv("readlink -x link.txt"), CodeUnknownFlag},
	})
}
