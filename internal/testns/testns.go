// Package testns lets a test that needs root (to mount a small tmpfs,
// say) run for a user who is not: the test runs again in new user and
// mount namespaces, where it is root over mounts of its own; and a test
// that needs a user who is not root run as one when the tests run as
// root.
package testns

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

const inNamespace = "VTEXEC_TESTNS"

// Root reports whether the calling test may go on as root. As root (the
// process's own, or the namespace's) it does. Otherwise it runs the test
// again under `unshare --user --map-root-user --mount`, fails t if that
// run fails or does not pass the test, and reports false: the caller
// returns, its work done in the namespace.
func Root(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() == 0 {
		return true
	}
	if os.Getenv(inNamespace) != "" {
		t.Fatal("not root in the user namespace")
	}
	name := t.Name()
	cmd := exec.Command("unshare", "--user", "--map-root-user", "--mount",
		os.Args[0], "-test.run", "^"+regexp.QuoteMeta(name)+"$", "-test.count=1", "-test.v")
	// A temporary directory of its own: those of the user outside belong
	// to nobody the namespace knows.
	cmd.Env = append(os.Environ(), inNamespace+"=1", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name+" ") {
		t.Fatalf("%s as root of a user namespace (unshare -rm; needs unprivileged user namespaces): %v\n%s", name, err, out)
	}
	return false
}
