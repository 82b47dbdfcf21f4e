// Package testbin builds vtexec for tests that run it as a program:
// vtexec and, beside it, vtexec-serve, which vtexec serve becomes.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Build builds both programs into dir, with env added to the build's
// environment, and returns vtexec's path.
func Build(dir string, env ...string) (string, error) {
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"github.com/vtexec/vtexec/cmd/vtexec", "github.com/vtexec/vtexec/cmd/vtexec-serve")
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return filepath.Join(dir, "vtexec"), nil
}
