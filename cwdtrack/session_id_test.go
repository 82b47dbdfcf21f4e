package cwdtrack

import (
	"regexp"
	"strings"
	"testing"
)

// idPattern is the documented form of a session id; validID must accept
// exactly what it matches.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

func FuzzValidIDIsItsPattern(f *testing.F) {
	for _, s := range []string{"", "a", "A.b_c-9", ".a", "-a", "_a", "a/b", "a b", "é", "a\x00",
		strings.Repeat("x", 64), strings.Repeat("x", 65), "a\n", "session-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := validID(id), idPattern.MatchString(id); got != want {
			t.Fatalf("validID(%q) = %v, the pattern says %v", id, got, want)
		}
	})
}
