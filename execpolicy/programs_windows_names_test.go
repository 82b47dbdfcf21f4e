package execpolicy

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A refused program is refused by any spelling Windows would find it by
// (any case, with an extension), Windows' shells among them: they run a
// language vtexec does not parse. Other names are not taken for a
// refused one.
func TestRefusedProgramsByEveryWindowsSpelling(t *testing.T) {
	ws := testWorkspace(t)
	for _, name := range []string{"pwsh", "powershell", "PowerShell.exe", "POWERSHELL", "pwsh.EXE", "cmd", "CMD.EXE", "cmd.com",
		"Bash.exe", "SH", "wsl.exe", "runas", "taskkill.exe", "schtasks", "reg", "format.com", "diskpart", "Curl.exe"} {
		v := Check(name+" x", ws)
		assert.Equal(t, Deny, v.Decision, name)
		assert.Equal(t, CodeForbiddenProgram, v.Code, "%s: %s", name, v.Reason)
	}
	for _, name := range []string{"cmdline", "powershell-ish", ".exe", "Rscript"} {
		v := Check(name+" x", ws)
		assert.NotEqual(t, CodeForbiddenProgram, v.Code, "%s: %s", name, v.Reason)
	}
	v := Check("PowerShell.exe -Command ls", ws)
	assert.Contains(t, v.Reason, "Windows shell")
	assert.Contains(t, v.Hint, "POSIX command line")
}
