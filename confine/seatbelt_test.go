package confine

import (
	"embed"
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateSeatbelt = flag.Bool("update-seatbelt", false, "rewrite testdata/seatbelt-*.sb")

// goldens are the golden profiles, built into the test binary: CI runs
// it again as another user, from another directory.
//
//go:embed testdata/seatbelt-*.sb
var goldens embed.FS

// seatbeltSpec is the box of a workspace with a git repository, a
// private HOME and TMPDIR, a read-only root and the protected names.
func seatbeltSpec(network bool) Spec {
	ws := "/Users/me/work"
	return Spec{
		ReadWrite: []string{ws, "/private/var/folders/ab/cd/T/vtexec-501/r-0123/run1", "/Users/me/Library/Caches/vtexec/workspace-0123/cache"},
		ReadOnly:  []string{"/Users/me/go/pkg/mod"},
		Protected: []Protected{{Path: ws + "/.vtexec", Dir: true}, {Path: ws + "/.claude", Dir: true}, {Path: ws + "/.envrc"}, {Path: ws + "/.gitattributes"}},
		GitDirs:   []string{ws + "/.git"},
		Network:   network,
	}
}

// The Seatbelt profile of a box is its golden file; and whatever the
// golden file says, every place the box has is in it as Landlock has it.
func TestSeatbeltProfile(t *testing.T) {
	for _, tc := range []struct {
		name              string
		network, gitWrite bool
	}{{"plain", false, false}, {"network-git", true, true}} {
		spec := seatbeltSpec(tc.network)
		got := SeatbeltProfile(spec, tc.gitWrite)
		golden := "testdata/seatbelt-" + tc.name + ".sb"
		if *updateSeatbelt {
			require.NoError(t, os.MkdirAll("testdata", 0o755))
			require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
		}
		want, err := goldens.ReadFile(golden)
		require.NoError(t, err, "go test ./confine -run TestSeatbeltProfile -update-seatbelt")
		assert.Equal(t, string(want), got, tc.name)

		write := got[strings.Index(got, "(allow file-write*"):]
		for _, p := range spec.ReadWrite {
			assert.Contains(t, write, `(subpath "`+p+`")`, "%s: %s is written", tc.name, p)
		}
		for _, p := range spec.Protected {
			assert.Contains(t, write, `(require-not (subpath "`+p.Path+`"))`, "%s: %s is never written", tc.name, p.Path)
		}
		if tc.gitWrite {
			// git may write its directory, never its hooks and config.
			assert.Contains(t, write, `(require-not (subpath "/Users/me/work/.git/hooks"))`)
			assert.Contains(t, write, `(require-not (subpath "/Users/me/work/.git/config"))`)
		} else {
			assert.Contains(t, write, `(require-not (subpath "/Users/me/work/.git"))`, "the git directory is read-only")
		}
		read := got[strings.Index(got, "(allow file-read*"):strings.Index(got, "(allow file-write-data")]
		assert.Contains(t, read, `(subpath "/Users/me/go/pkg/mod")`)
		assert.NotContains(t, read, `(subpath "/Users/me")`+"\n", "nothing of the home but the box's places")
		assert.Equal(t, tc.network, strings.Contains(got, "(allow network*)"), "%s: the network decision", tc.name)
		assert.True(t, strings.HasPrefix(got, ";; vtexec box") && strings.Contains(got, "(deny default)"))
	}
}

// A program under the Seatbelt launcher gets the box's profile and runs
// as it would have: its path, arguments, environment, directory and
// streams. (A stand-in launcher records the profile and starts the rest
// of its arguments; macOS's own is never run here.)
func TestSeatbeltWrapStartsTheProgramUnderTheProfile(t *testing.T) {
	dir := t.TempDir()
	launcher := dir + "/sandbox-exec"
	require.NoError(t, os.WriteFile(launcher, []byte("#!/bin/sh\n[ \"$1\" = -p ] || exit 90\nprintf %s \"$2\" > \"$PROFILE_OUT\"\nshift 2\nexec \"$@\"\n"), 0o755))
	work := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", `pwd; printf '%s|' "$0" "$1" "$X"`, "-p", "two words")
	cmd.Dir, cmd.Env = work, []string{"X=y", "PROFILE_OUT=" + dir + "/profile"}
	profile := SeatbeltProfile(seatbeltSpec(false), true)
	require.NoError(t, seatbeltWrap(cmd, launcher, profile))
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.Equal(t, work+"\n-p|two words|y|", string(out), "an argument like the launcher's option is the program's")
	got, err := os.ReadFile(dir + "/profile")
	require.NoError(t, err)
	assert.Equal(t, profile, string(got))

	rel := exec.Command("sh", "-c", "true")
	rel.Path = "sh"
	assert.Error(t, seatbeltWrap(rel, launcher, profile), "a program named without its path could be taken for the launcher's option")
}

// The profile names places as the kernel resolves them, whichever way
// the box's description spells them: a spec under /var/folders (where
// $TMPDIR is) gives the profile of the same spec under /private/var.
func TestSeatbeltProfileIsCanonical(t *testing.T) {
	spec := seatbeltSpec(false)
	viaLink := spec
	viaLink.ReadWrite = append([]string(nil), spec.ReadWrite...)
	for i, p := range viaLink.ReadWrite {
		viaLink.ReadWrite[i] = strings.Replace(p, "/private/var/", "/var/", 1)
	}
	require.NotEqual(t, spec.ReadWrite, viaLink.ReadWrite)
	assert.Equal(t, SeatbeltProfile(spec, false), SeatbeltProfile(viaLink, false))
	assert.NotContains(t, SeatbeltProfile(viaLink, false), `"/var/`)
}
