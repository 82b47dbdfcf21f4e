package validators

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSed(t *testing.T) {
	ws := searchWorkspace(t)
	runSearchCases(t, ws, []searchCase{
		{splitArgv("sed -n 1,5p file.txt"), ""},
		{splitArgv("sed -n 1,5p"), ""}, // standard input
		{splitArgv("sed p -"), ""},
		{[]string{"sed", "-E", `s/(a)/\1/g`, "file.txt"}, ""},
		{[]string{"sed", "$!N", "file.txt"}, ""},
		{[]string{"sed", "-n", "/start/,/end/{p}", "file.txt"}, ""},
		{[]string{"sed", "y/abc/xyz/", "file.txt"}, ""},
		{[]string{"sed", `s/a\/b/c/`, "file.txt"}, ""},
		{[]string{"sed", "s|[|]|x|", "file.txt"}, ""}, // "|" inside a bracket expression
		{[]string{"sed", "a hello", "file.txt"}, ""},
		{[]string{"sed", "a foo; e id", "file.txt"}, ""}, // text up to the end of the line
		{[]string{"sed", "1i\\\ne id", "file.txt"}, ""},  // likewise after a\ and a newline
		{[]string{"sed", "s/x/y/;# e id", "file.txt"}, ""},
		{[]string{"sed", ":a;N;$!ba;s/\\n/ /g", "file.txt"}, ""},
		{[]string{"sed", "0,/re/d;1~2d;2,~4p;/x/,+2p;/x/I,/y/Mp", "file.txt"}, ""},
		{[]string{"sed", "s/x/y/w out.txt", "file.txt"}, ""},
		{[]string{"sed", "s/x/y/gpw src/out.txt", "file.txt"}, ""},
		{[]string{"sed", "-n", "w /dev/stdout", "file.txt"}, ""},
		{[]string{"sed", "W /dev/stderr", "file.txt"}, ""},
		{[]string{"sed", "r src/a.txt", "file.txt"}, ""},
		{[]string{"sed", "R /dev/stdin", "file.txt"}, ""},
		{[]string{"sed", "-e", "p", "-e", "s/a/b/", "file.txt", "src/a.txt"}, ""},
		{[]string{"sed", "--expression=p", "--quiet", "file.txt"}, ""},
		{[]string{"sed", "-e", "a\\", "-e", "e id", "file.txt"}, ""}, // the second -e is a's text
		{[]string{"sed", "--sandbox", "-f", "cont.sed", "-e", "e id", "file.txt"}, ""},
		{splitArgv("sed --sandbox -f ok.sed file.txt"), ""},
		{splitArgv("sed -f ok.sed file.txt"), CodeForbiddenFlag}, // read again when sed runs
		{splitArgv("sed --sandbox --file=ok.sed -f ok.sed file.txt"), ""},
		{splitArgv("sed -s -n $p file.txt src/a.txt"), ""},
		{splitArgv("sed --sandbox --debug --posix -u -z -l 5 -b -r p file.txt"), ""},
		{splitArgv("sed -i s/a/b/ file.txt src/a.txt"), ""},
		{splitArgv("sed -i.bak s/a/b/ file.txt"), ""},
		{splitArgv("sed --in-place=.orig s/a/b/ file.txt"), ""},
		{splitArgv("sed -ni p file.txt"), ""},
		{splitArgv("sed -ie s/a/b/ file.txt"), ""}, // -i with suffix "e"; the script is an operand
		{[]string{"sed", "-i", "bak/*", "s/a/b/", "file.txt"}, ""},
		{splitArgv("sed --version"), ""},
		{splitArgv("sed --help"), ""},

		// Running commands.
		{[]string{"sed", "1e id", "file.txt"}, CodeForbiddenFlag},
		{[]string{"sed", "e", "file.txt"}, CodeForbiddenFlag},
		{[]string{"sed", "s/x/y/;e id", "file.txt"}, CodeForbiddenFlag},
		{[]string{"sed", "s/x/y/e", "file.txt"}, CodeForbiddenFlag},
		{[]string{"sed", "s/x/y/ge", "file.txt"}, CodeForbiddenFlag},
		{[]string{"sed", "s|x|y| e", "file.txt"}, CodeForbiddenFlag},
		{[]string{"sed", "$!{N;e id\n}", "file.txt"}, CodeForbiddenFlag},
		{[]string{"sed", "-n", "-e", "p", "-e", "1e id", "file.txt"}, CodeForbiddenFlag},
		{[]string{"sed", "--sandbox", "-f", "nl.sed", "-e", "e id", "file.txt"}, CodeForbiddenFlag},
		{splitArgv("sed --sandbox -f evil.sed file.txt"), CodeForbiddenFlag},
		{splitArgv("sed --sandbox -f - file.txt"), CodeForbiddenFlag},
		// Writing files.
		{[]string{"sed", "s|x|y|w /tmp/out", "file.txt"}, codeOutside},
		{[]string{"sed", "s/x/y/w out/passwd", "file.txt"}, codeOutside},
		{[]string{"sed", "w .git/config", "file.txt"}, codeProtected},
		{[]string{"sed", "1W .git/hooks/pre-commit", "file.txt"}, codeProtected},
		{[]string{"sed", "p;w ../x", "file.txt"}, codeOutside},
		{[]string{"sed", "--posix", "w /dev/stdout", "file.txt"}, codeOutside},
		{[]string{"sed", "w /dev/stdout ", "file.txt"}, codeOutside}, // the name includes the space
		{splitArgv("sed --sandbox -f wout.sed file.txt"), codeOutside},
		// Reading files.
		{[]string{"sed", "r /etc/passwd", "file.txt"}, codeOutside},
		{[]string{"sed", "0r out/passwd", "file.txt"}, codeOutside},
		{[]string{"sed", "R ../secret", "file.txt"}, codeOutside},
		{splitArgv("sed p /etc/passwd"), codeOutside},
		{splitArgv("sed -n p file.txt out/passwd"), codeOutside},
		{splitArgv("sed --sandbox -f ../x.sed file.txt"), codeOutside},
		{splitArgv("sed --sandbox -f /etc/passwd file.txt"), codeOutside},
		// In place.
		{splitArgv("sed -i s/a/b/ ../x"), codeOutside},
		{splitArgv("sed -i s/a/b/ out/passwd"), codeOutside},
		{splitArgv("sed -i s/a/b/ .git/config"), codeProtected},
		{splitArgv("sed -i s/a/b/ .git/lnk"), codeProtected},
		{splitArgv("sed -i s/a/b/ link.txt"), CodeBadUsage},
		{[]string{"sed", "-i../*", "s/a/b/", "file.txt"}, codeOutside},
		{[]string{"sed", "--in-place=.git/*", "s/a/b/", "file.txt"}, codeProtected},
		{[]string{"sed", "-i/tmp/*", "s/a/b/", "file.txt"}, codeOutside},
		{splitArgv("sed --follow-symlinks -i s/a/b/ file.txt"), CodeForbiddenFlag},
		// Flags.
		{splitArgv("sed --in-pl s/a/b/ file.txt"), CodeUnknownFlag},
		{splitArgv("sed --expr=p file.txt"), CodeUnknownFlag},
		{splitArgv("sed -c p file.txt"), CodeUnknownFlag},
		{splitArgv("sed -l many p file.txt"), CodeBadUsage},
		// Scripts vtexec cannot read are refused.
		{splitArgv("sed"), CodeBadUsage},
		{splitArgv("sed -n"), CodeBadUsage},
		{splitArgv("sed k file.txt"), CodeBadUsage},
		{splitArgv("sed L file.txt"), CodeBadUsage},
		{splitArgv("sed s/x/y file.txt"), CodeBadUsage},
		{splitArgv("sed s/x/y/q file.txt"), CodeBadUsage},
		{splitArgv("sed {p file.txt"), CodeBadUsage},
		{splitArgv("sed p} file.txt"), CodeBadUsage},
		{splitArgv("sed 1,2,3p file.txt"), CodeBadUsage},
		{splitArgv("sed w file.txt"), CodeBadUsage}, // "w" needs a file name; file.txt is input
		{[]string{"sed", "px", "file.txt"}, CodeBadUsage},
		{[]string{"sed", "s\xc2\xa7a\xc2\xa7b\xc2\xa7", "file.txt"}, CodeBadUsage},
		{[]string{"sed", "s/\\c[/e/;e id;s/]/x/", "file.txt"}, CodeBadUsage},
		{splitArgv("sed --sandbox -f missing.sed file.txt"), CodeBadUsage},
		{splitArgv("sed --sandbox -f src file.txt"), CodeBadUsage},
	})
}

// TestParseSed checks where commands begin and end in scripts whose text,
// regexes and file names contain other sed syntax.
func TestParseSed(t *testing.T) {
	tests := map[string]string{ // script: its commands, with e/file marks
		"p":                     "p",
		"1,5p;$!N;=":            "p N =",
		"/start/,/end/{p}":      "{ p }",
		"y/abc/xyz/":            "y",
		`s/a\/b/c/`:             "s",
		"s|[|]|x|p":             "s",
		"s/[[:alpha:]/]/x/":     "s",
		"a hello; e id":         "a",
		"a\\\nhello\\\ne id\np": "a p",
		"i\\":                   "i",
		"c\\text":               "c",
		":a;N;$!ba;s/\\n/ /g":   ": N b s",
		"{b end}":               "{ b }",
		"1e id":                 "e!",
		"e":                     "e!",
		"s/x/y/e":               "s!",
		"s/x/y/w out; e id":     "s>out; e id",
		"w out}":                "w>out}",
		"r in\np":               "r>in p",
		"R in":                  "R>in",
		"W  spaced name ":       "W>spaced name ",
		"#n\np # c\n# e id":     "p",
		`\%a\%b%p`:              "p",
		"snxnyn":                "s",
		"s x y g":               "s",
		"/x/ I ! p":             "p",
		"v 4.2\nF;z;l 3;q 5":    "F z l q",
		"+0p":                   "p",
	}
	for script, want := range tests {
		cmds, err := parseSed(script)
		require.NoError(t, err, "%q", script)
		var got []string
		for _, c := range cmds {
			s := string(c.name)
			if c.exec {
				s += "!"
			}
			if c.file != "" {
				s += ">" + c.file
			}
			got = append(got, s)
		}
		assert.Equal(t, want, strings.Join(got, " "), "%q", script)
	}
}

// gnuSed4_9 returns the path of GNU sed 4.9, Debian's (the parser is
// held to that version's grammar), or fails the test: elsewhere it would
// compare with another grammar, and skipping would hide the comparison.
func gnuSed4_9(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("sed")
	require.NoError(t, err, "sed is in Debian's base")
	out, err := exec.Command(path, "--version").Output()
	require.NoError(t, err, "sed --version")
	first, _, _ := strings.Cut(string(out), "\n")
	require.True(t, strings.HasSuffix(first, "(GNU sed) 4.9"), "the comparison needs GNU sed 4.9 (Debian's); %s is %q", path, first)
	return path
}

// runSed compiles script with GNU sed on empty input in dir and reports
// whether sed accepted it. With no input line no command runs, and the
// generated scripts contain no "/", so files w creates stay in dir.
func runSed(sed, dir string, extra ...string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sed, append([]string{"-n"}, extra...)...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(nil)
	return cmd.Run() == nil
}

// TestSedParseMatchesGNUSed compares parseSed with GNU sed 4.9 itself on
// generated scripts: every script sed accepts must parse, and must contain
// a command that runs, reads or writes (which --sandbox refuses) exactly
// when parseSed finds one, with the same files for w.
func TestSedParseMatchesGNUSed(t *testing.T) {
	sed := gnuSed4_9(t)
	rng := rand.New(rand.NewPCG(4, 9))
	scripts := append([]string(nil), sedCorpus...)
	for range 700 {
		scripts = append(scripts, genSedScript(rng), genSedNoise(rng))
	}
	accepted, risky := 0, 0
	defer func() {
		t.Logf("%d scripts: sed accepts %d, of which %d run, read or write", len(scripts), accepted, risky)
	}()
	for _, script := range scripts {
		dir := t.TempDir()
		gnuOK := runSed(sed, dir, "-e", script)
		if gnuOK {
			accepted++
		}
		cmds, err := parseSed(script)
		if !gnuOK {
			continue // sed refuses it: nothing would run, whatever we think
		}
		if err != nil {
			if !strings.Contains(err.Error(), "read differently by different sed versions") &&
				!strings.Contains(err.Error(), "unknown command: \"L\"") {
				t.Errorf("GNU sed accepts %q, parseSed: %v", script, err)
			}
			continue
		}
		gnuRisky := !runSed(sed, t.TempDir(), "--sandbox", "-e", script)
		if gnuRisky {
			risky++
		}
		var found bool
		var want []string
		for _, c := range cmds {
			found = found || c.exec || c.file != ""
			if c.file != "" && c.name != 'r' && c.name != 'R' {
				want = append(want, c.file)
			}
		}
		if found != gnuRisky {
			t.Errorf("%q: sandbox refuses it: %v, parseSed finds e/r/w: %v (%+v)", script, gnuRisky, found, cmds)
		}
		entries, _ := os.ReadDir(dir)
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		want = sedDedupSorted(want)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("%q: sed created %q, parseSed found w files %q", script, got, want)
		}
	}
}

func sedDedupSorted(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// sedCorpus are hand-written scripts around the places where the parser
// could lose track of where a command ends.
var sedCorpus = []string{
	"p", "1,5p", "$!N", "/start/,/end/{p}", "y|abc|xyz|", `s|a\|b|c|`, "a hello", "a\\\nhello",
	"1e id", "s|x|y|e", "s|x|y|w out", "w out", "r in", "R in", "W out2", "1~2p", "2,~4p", "0,|x|p",
	`\,x,p`, `\%a\%b%p`, "s|[|]|x|p", "s|[[:alpha:]|]|x|", "s|[^]|]|x|", "s|[[.|.]]|x|", "s|[[=|=]]|x|",
	"y|[|]|", "a foo; e id", "i\\\nfoo\\\ne id", "c\\", "#n\np", "p # e id", ": a;b a", ":a;N;$!ba;s|\\n| |g",
	"{s|a|b|}", "s|a|b| p g", "s|a|b|3p", "s|a|b|gw out3", "s|a|b|w out4\np", "b x}", "{b x}\n:x",
	"v 4.2", "F;z", "q5", "Q 3", "l 5;p", "e", "e\np", "1!!p", "}", "{p", "s|x|\\\ny|", "s|x\\\ny|z|",
	"s\\x\\y\\", "snxnyn", "s x y ", "s;x;y;e", "s#x#y#w out5", "y;a;b;", "/x/ I p", "/x/I,/y/M{p}",
	"+0p", "0,+0p", "1,+0p", "s|\\c|x|", "s|a|\\c|", "s|\\c\\\\|x|e", "s|\\c[|e|;e id;s|]|x|",
	"a\\  hi", "a\\text", "1{\n#c\n}", "s|x|y|\r\n", "w\tout6", "r", "w", "a", "y|a|b|}",
}

// genSedScript builds a random script from pieces of sed syntax, mostly
// well formed, with noise. It never contains "/".
func genSedScript(rng *rand.Rand) string {
	delims := []string{"|", ",", "x", "#", ";", " ", "\\", "[", "]", "n", "c", "}", "{"}
	pieces := []func() string{
		func() string { return "p" }, func() string { return "e" }, func() string { return "e id" },
		func() string { return "w o" + string(rune('a'+rng.IntN(3))) },
		func() string { return "r in" }, func() string { return "W o" + string(rune('a'+rng.IntN(3))) },
		func() string {
			d := delims[rng.IntN(len(delims))]
			return "s" + d + genSedText(rng, d) + d + genSedText(rng, d) + d + genSedFlags(rng)
		},
		func() string {
			d := delims[rng.IntN(len(delims))]
			return "y" + d + genSedText(rng, d) + d + genSedText(rng, d) + d
		},
		func() string { return "a " + genSedText(rng, "") }, func() string { return "i\\" + genSedText(rng, "") },
		func() string { return "c\\\n" + genSedText(rng, "") }, func() string { return ":" + genSedText(rng, "") },
		func() string { return "b" + genSedText(rng, "") }, func() string { return "{" }, func() string { return "}" },
		func() string { return "#" + genSedText(rng, "") }, func() string { return "q" }, func() string { return "l 3" },
		func() string { return "1" }, func() string { return "$" }, func() string { return "1,3" },
		func() string { return "0~2" }, func() string { return ",+2" }, func() string { return "!" },
		func() string {
			d := delims[rng.IntN(len(delims))]
			return "\\" + d + genSedText(rng, d) + d + []string{"", "I", "M", " I"}[rng.IntN(4)]
		},
		func() string { return "|" + genSedText(rng, "|") + "|" },
		func() string { return genSedText(rng, "") },
	}
	seps := []string{";", "\n", " ", "", "\\\n", "}", "\\"}
	var b strings.Builder
	for n := 1 + rng.IntN(5); n > 0; n-- {
		b.WriteString(pieces[rng.IntN(len(pieces))]())
		b.WriteString(seps[rng.IntN(len(seps))])
	}
	return b.String()
}

func genSedText(rng *rand.Rand, delim string) string {
	alphabet := []string{"a", "b", "e", "w", "p", "g", " ", ";", "\\", "\\\\", "[", "]", "[:", ":]", "[.", ".]",
		"[=", "=]", "^", "\n", "\\\n", "}", "{", "#", "|", "\\|", "c", "\\c", "&", "1", "x", "n"}
	if delim != "" {
		alphabet = append(alphabet, delim, "\\"+delim)
	}
	var b strings.Builder
	for n := rng.IntN(6); n > 0; n-- {
		b.WriteString(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

func genSedFlags(rng *rand.Rand) string {
	flags := []string{"", "g", "p", "e", "I", "m", "2", "w o", "gp", "pe", " e", "w oz", "ge"}
	return flags[rng.IntN(len(flags))]
}

// genSedNoise is a short random string of characters that mean something
// to sed.
func genSedNoise(rng *rand.Rand) string {
	const chars = "sywWrRae;{}\\|\n #:bt!,$1~+0pIMgq[]:.=^c&x "
	b := make([]byte, 1+rng.IntN(14))
	for i := range b {
		b[i] = chars[rng.IntN(len(chars))]
	}
	return string(b)
}
