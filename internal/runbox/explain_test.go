package runbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestExplainNamesWhatTheBoxDenied(t *testing.T) {
	f := Facts{Root: "/ws", Writable: []string{"/runs/run-1/tmp", "/data/rw"}, Protected: ProtectedNames([]string{"deploy/"})}
	cases := []struct {
		stderr string
		paths  []string // of the notes, "" for the network
	}{
		{"OSError: [Errno 30] Read-only file system: '/usr/lib/python3/dist-packages/x.pth'", []string{"/usr/lib/python3/dist-packages/x.pth"}},
		{"ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: '/usr/local/lib/python3.11/dist-packages/foo'\n", []string{"/usr/local/lib/python3.11/dist-packages/foo"}},
		{"npm error code EACCES\nnpm error syscall mkdir\nnpm error path /usr/local/lib/node_modules/typescript\nnpm error errno -13\n", []string{"/usr/local/lib/node_modules/typescript"}},
		{"touch: cannot touch '/etc/motd': Read-only file system", []string{"/etc/motd"}},
		{"go: open /root/go/pkg/mod/cache/x.lock: read-only file system", []string{"/root/go/pkg/mod/cache/x.lock"}},
		{"sh: 1: cannot create /ws/.envrc: Read-only file system", []string{"/ws/.envrc"}},
		{"error: could not lock config file /ws/deploy/x: Permission denied", []string{"/ws/deploy/x"}},
		{"curl: (6) Could not resolve host: example.com", []string{""}},
		{"npm error network getaddrinfo EAI_AGAIN registry.npmjs.org", []string{""}},
		// Not the box's doing: no note.
		{"cat: /ws/secret.txt: Permission denied", nil},
		{"cp: cannot create regular file '/runs/run-1/tmp/x': Permission denied", nil},
		{"open /data/rw/out: permission denied", nil},
		{"/dev/shm/sem.x: Permission denied", nil},
		{"FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1, want 2", nil},
		{"Error: Cannot find module '/ws/src/missing.js'", nil},
	}
	for _, tc := range cases {
		notes := Explain(tc.stderr, f)
		var got []string
		for _, n := range notes {
			got = append(got, n.Path)
			assert.NotEmpty(t, n.Why, tc.stderr)
			assert.NotEmpty(t, n.Hint, tc.stderr)
		}
		assert.Equal(t, tc.paths, got, tc.stderr)
	}
	f.Network = true
	assert.Empty(t, Explain("curl: (6) Could not resolve host: example.com", f), "a command with the network: not the box's doing")
}
