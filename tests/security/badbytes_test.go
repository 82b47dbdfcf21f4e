package security

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// A NUL byte in a command string is refused, never dropped: dropping it
// would run another command than the one sent ("cat\x00 x" is not
// "cat x"), and bash would not run it either.
func TestNULInCommandIsBadRequest(t *testing.T) {
	ws := fixture(t)
	for _, cmd := range []string{"cat\x00 README.md", "ls\x00", "echo 'a\x00b'", "cat README.md # \x00", "\x00",
		// bash keeps a CR before LF in the word; the parser would drop it.
		"echo a\r\necho b", "echo 'x\r\ny'"} {
		_, err := vtexec.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws})
		var re *vtexec.RequestError
		require.True(t, errors.As(err, &re), "%q: %v", cmd, err)
		assert.Equal(t, "bad_request", re.Code, "%q", cmd)
		assert.NotEmpty(t, re.Hint)
	}
}
