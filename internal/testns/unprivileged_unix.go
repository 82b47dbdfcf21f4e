//go:build unix

package testns

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// UnprivilegedUID is the user Unprivileged runs a test as.
const UnprivilegedUID = 65534

// Unprivileged reports whether the calling test may go on as a user who
// is not root. Not as root it does. As root it runs the test again as
// UnprivilegedUID (from a copy of the test binary that user can run,
// with a HOME and TMPDIR of that user's), fails t if that run fails or
// does not pass the test, and reports false: the caller returns, its
// work done by the other user.
func Unprivileged(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return true
	}
	name := t.Name()
	dir, err := os.MkdirTemp("", "testns-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "home")
	bin := filepath.Join(dir, "test")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyExecutable(bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, UnprivilegedUID, UnprivilegedUID); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^"+regexp.QuoteMeta(name)+"$", "-test.count=1", "-test.v")
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "TMPDIR=" + home, "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: UnprivilegedUID, Gid: UnprivilegedUID, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name+" ") {
		t.Fatalf("%s as uid %d: %v\n%s", name, UnprivilegedUID, err, out)
	}
	return false
}

// copyExecutable copies the running test binary to path, executable by
// everyone.
func copyExecutable(path string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	self, err := os.Open(exe)
	if err != nil {
		return err
	}
	defer self.Close()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, self); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
