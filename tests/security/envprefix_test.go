package security

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Environment prefixes: only settings of output, with literal values that
// name no file, program or flag, pass; everything that could load code,
// read a file or change where programs come from is refused.
func TestEnvPrefixTable(t *testing.T) {
	checkTable(t, []tableCase{
		{"LC_ALL=C sort file.txt", allow},
		{"LC_ALL=C.UTF-8 LANG=C ls", allow},
		{"LANG=de_DE.UTF-8 ls", allow},
		{"LANGUAGE=en_US:de ls", allow},
		{"TZ=Europe/Paris ls", allow},
		{"TZ=EST5EDT ls", allow},
		{"NO_COLOR=1 COLUMNS=120 ls", allow},
		{"TERM=dumb PAGER=cat GIT_PAGER=cat ls", allow},
		{"CI=1 ls", allow},
		{"'LC_ALL'=C ls", deny("not_allowed")}, // a quoted name is a word: a program named LC_ALL=C
		{`LC_ALL="C" ls`, allow},
		// Code and files.
		{"LD_PRELOAD=./x.so ls", deny("assignment")},
		{"LD_LIBRARY_PATH=. ls", deny("assignment")},
		{"LOCPATH=. LC_ALL=x ls", deny("assignment")},
		{"GCONV_PATH=. ls", deny("assignment")},
		{"BASH_ENV=x.sh ls", deny("assignment")},
		{"PATH=. ls", deny("assignment")},
		{"GOFLAGS=-toolexec=./x go build", deny("assignment")},
		{"GIT_DIR=/tmp/x git status", deny("assignment")},
		{"GIT_CONFIG_GLOBAL=x git status", deny("assignment")},
		{"PAGER=./x.sh git log", deny("assignment")},
		{"GIT_PAGER=less git log", deny("assignment")},
		{"TERM=xterm ls", deny("assignment")},
		{"HOME=. git status", deny("assignment")},
		{"TMPDIR=/tmp ls", deny("assignment")},
		// Values that name a file.
		{"TZ=/etc/localtime ls", deny("assignment")},
		{"PYTHONDONTWRITEBYTECODE=1 ls", allow},
		{"PYTHONPATH=src:lib/py ls", allow},
		{"PYTHONPATH=/etc ls", deny("assignment")},
		{"PYTHONPATH=src:../ws2 ls", deny("assignment")},
		{"PYTHONPATH=~/lib ls", deny("assignment")},
		{"PYTHONPATH=src: ls", deny("assignment")},
		{"PYTHONSTARTUP=x.py ls", deny("assignment")},
		{"NODE_OPTIONS=--require=./x.js ls", deny("assignment")},
		{"NODE_ENV='a b' ls", deny("assignment")},
		{"NODE_ENV=test ls", allow},
		{"TZ=:/etc/passwd ls", deny("assignment")},
		{"TZ=../../etc/passwd ls", deny("assignment")},
		{"LC_ALL=../x ls", deny("assignment")},
		{"LC_ALL=/tmp/locale ls", deny("assignment")},
		{"LANG=en_US/../../x ls", deny("assignment")},
		// Values that are not literal, forms that are not prefixes.
		{"LC_ALL=$X ls", runTime},
		{"LC_ALL=$(id) ls", ask},
		{"LC_ALL=* ls", deny("assignment")},
		{"LC_ALL+=C ls", runTime},
		{"LC_ALL=C", allow},
		{"export LC_ALL=C", deny("assignment")},
		{"LC_ALL=C cd src", deny("assignment")},
		{"COLUMNS=0 ls", deny("assignment")},
		{"COLUMNS=99999 ls", deny("assignment")},
		// A prefix does not make a refused command pass.
		{"LC_ALL=C cat /etc/passwd", deny("outside_workspace")},
		{"LC_ALL=C curl x", deny("forbidden_program")},
	})
}

// The prefix reaches the program, and only the program it prefixes.
func TestEnvPrefixReachesTheProgram(t *testing.T) {
	ws := fixture(t)
	res := runIn(t, ws, "LC_ALL=C TZ=UTC COLUMNS=77 printenv LC_ALL TZ COLUMNS; printenv COLUMNS")
	assert.Equal(t, []string{"C", "UTC", "77"}, strings.Split(strings.TrimSpace(res.Stdout), "\n"), "the second command has no prefix")
	assert.Equal(t, 1, res.ExitCode, "printenv of an unset variable")
	res = runIn(t, ws, "TERM=dumb printenv TERM")
	assert.Equal(t, "dumb\n", res.Stdout)
}
