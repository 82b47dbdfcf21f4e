package execpolicy

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/validators"
)

// The regular expressions canonicalProgram once used: the hand-written
// code must agree with them on every name.
var (
	refVersionSuffix  = regexp.MustCompile(`^(.*[a-z])[-_]?[0-9]+(\.[0-9]+)*$`)
	refPlatformSuffix = regexp.MustCompile(`-(x86_64|i[3-6]86|aarch64|arm[a-z0-9]*|riscv64|powerpc64le|ppc64el|s390x|mips[a-z0-9]*)-linux-gnu[a-z]*$`)
)

func refCanonicalProgram(name string) string {
	name = refPlatformSuffix.ReplaceAllString(name, "")
	if m := refVersionSuffix.FindStringSubmatch(name); m != nil && len(m[1]) >= 2 {
		name = m[1]
	}
	if a := validators.AliasOf(name); a != "" {
		return a
	}
	return name
}

var programNameSeeds = []string{
	"python3.11", "perl5.36.0", "gcc-12", "node18", "perl5.36-x86_64-linux-gnu", "bash5.2",
	"python3", "pypy3", "nodejs", "python", "x86_64-linux-gnu-gcc-12", "gcc-12-x86_64-linux-gnu",
	"ld-i686-linux-gnux", "as-i786-linux-gnu", "cc-armv7l-linux-gnueabihf", "cc-arm-v7-linux-gnu",
	"cc-mips64el-linux-gnuabi", "cc-mips-linux-gnu-", "tool-s390x-linux-gnu", "a1", "ab1", "ab_1.2.3",
	"ab-1.", "ab-.1", "ab--1", "AB1", "ab1a2", "a\nb1", "ab\n1", "ab1\n", "é1", "aé1", "\xffab1",
	"-x86_64-linux-gnu", "x-aarch64-linux-gnu-aarch64-linux-gnu", "x-ppc64el-linux-gnuX", "1", "", "-", "gcc-",
	"python3.11-riscv64-linux-gnu", "a-i386-linux-gnu-b-x86_64-linux-gnu",
}

func TestCanonicalProgramMatchesRegexps(t *testing.T) {
	for _, name := range programNameSeeds {
		if got, want := canonicalProgram(name), refCanonicalProgram(name); got != want {
			t.Errorf("canonicalProgram(%q) = %q, the regular expressions give %q", name, got, want)
		}
	}
}

func FuzzCanonicalProgram(f *testing.F) {
	for _, s := range programNameSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := canonicalProgram(name), refCanonicalProgram(name); got != want {
			t.Errorf("canonicalProgram(%q) = %q, the regular expressions give %q", name, got, want)
		}
	})
}

// realName gives the name filepath.EvalSymlinks gives, for a file, a
// link to it, a link to a link, a file through a linked directory, and
// nothing.
func TestRealNameMatchesEvalSymlinks(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "python3.11"), []byte("#!/bin/true\n"), 0o755))
	must(os.Symlink("python3.11", filepath.Join(dir, "harmless")))
	must(os.Symlink("harmless", filepath.Join(dir, "again")))
	must(os.Symlink(dir, filepath.Join(dir, "bin")))
	for _, p := range []string{"python3.11", "harmless", "again", "bin/python3.11", "bin/harmless", "missing", "bin/missing"} {
		p = filepath.Join(dir, p)
		real, err := filepath.EvalSymlinks(p)
		// As a path alone, and as the lookup of its name finds it, with
		// what that look saw of the file.
		progs := []plan.Program{{Path: p}}
		if found, ok := plan.LookProgram(filepath.Base(p), filepath.Dir(p)); ok {
			progs = append(progs, found)
		}
		for _, prog := range progs {
			got, ok := realName(prog)
			if ok != (err == nil) || ok && got != filepath.Base(real) {
				t.Errorf("realName(%+v) = %q, %v; EvalSymlinks gives %q, %v", prog, got, ok, real, err)
			}
		}
	}
}
