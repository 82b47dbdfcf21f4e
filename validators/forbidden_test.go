package validators

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Windows' shells run a language vtexec does not parse: refused by any
// spelling Windows would find them by (any case, with an extension), as
// are the Windows programs that do what refused Unix ones do. An
// allowed program's name is not taken for another in those spellings.
func TestWindowsProgramsAreRefusedByEverySpelling(t *testing.T) {
	for _, name := range []string{"pwsh", "powershell", "PowerShell.exe", "POWERSHELL", "pwsh.EXE", "cmd", "CMD.EXE", "cmd.com",
		"Bash.exe", "wsl.exe", "runas", "taskkill.exe", "schtasks", "reg", "format.com", "diskpart"} {
		_, refused := Forbidden(name)
		assert.True(t, refused, name)
	}
	for _, name := range []string{"ls", "cat.txt", "git", "Git", ".exe", "cmdline", "powershell-ish"} {
		_, refused := Forbidden(name)
		assert.False(t, refused, name)
	}
	why, _ := Forbidden("PowerShell.exe")
	assert.Contains(t, why.Reason, "Windows shell")
	assert.Contains(t, why.Hint, "POSIX command line")
}
