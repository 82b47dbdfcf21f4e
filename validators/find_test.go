package validators

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFind(t *testing.T) {
	ws := searchWorkspace(t)
	runSearchCases(t, ws, []searchCase{
		{splitArgv("find"), ""},
		{splitArgv("find ."), ""},
		{[]string{"find", ".", "-name", "*.go"}, ""},
		{[]string{"find", "-name", "*.go"}, ""}, // no start point: "."
		{[]string{"find", "src", "README.md", "-type", "f", "-name", "*.txt", "-print"}, ""},
		{[]string{"find", ".", "-name", "*.go", "-o", "-name", "*.md"}, ""},
		{[]string{"find", ".", "(", "-name", "a", "-o", "-name", "b", ")", "-print"}, ""},
		{[]string{"find", ".", "(", "-name", "*.go", "-o", "-name", "*.md", ")", "-not", "-path", "./.git/*"}, ""},
		{[]string{"find", ".", "!", "-name", "x", "-a", "-type", "d", "-and", "-empty", "-or", "-true"}, ""},
		{[]string{"find", ".", "-name", ".git", "-prune", "-o", "-type", "f", "-print0"}, ""},
		{splitArgv("find . -maxdepth 2 -mindepth 1 -type d"), ""},
		{splitArgv("find . -newer file.txt -anewer src/a.txt -cnewer README.md -samefile link.txt"), ""},
		{splitArgv("find . -newermt 2024-01-01 -newerBt yesterday -newerma file.txt"), ""},
		{[]string{"find", ".", "-printf", "%p %s\\n", "-ls"}, ""},
		{[]string{"find", ".", "-regextype", "posix-extended", "-iregex", ".*\\.GO", "-size", "+1k"}, ""},
		{splitArgv("find . -mtime -1 -mmin +5 -atime 2 -amin 3 -ctime 1 -cmin 1 -used 1 -daystart"), ""},
		{splitArgv("find . -perm -u+x -user root -group root -uid 0 -gid 0 -nouser -nogroup -links 1 -inum 5"), ""},
		{splitArgv("find . -readable -writable -executable -xtype l -lname x -ilname y -fstype ext4"), ""},
		{splitArgv("find . -xdev -mount -noleaf -ignore_readdir_race -noignore_readdir_race -depth -d -warn -nowarn"), ""},
		{splitArgv("find . -wholename ./x -iwholename ./y -ipath ./z -regex .* -quit"), ""},
		{splitArgv("find -H src -name x"), ""},
		{splitArgv("find -P -D tree -O3 . -name x"), ""},
		{splitArgv("find -- . -name x"), ""},
		{splitArgv("find . -name -exec"), ""}, // "-exec" is -name's pattern
		{splitArgv("find ) ,"), ""},           // leading ")" and "," are file names
		{splitArgv("find . -( -name a -)"), ""},
		{splitArgv("find --help"), ""},
		{splitArgv("find -version"), ""},

		// Programs (the command itself is checked by the caller, as a
		// wrapper's is): a reader on regular files only is allowed; any
		// other -exec asks.
		{splitArgv("find . -type f -name *.txt -exec grep -l TODO {} +"), ""},
		{splitArgv("find src -type f -exec wc -l {} ;"), ""},
		{splitArgv("find . -name *.go -type f -execdir head -n 3 {} ;"), "unseen_arguments"}, // runs in each match's directory
		{splitArgv("find . -type f -exec cat {} ; -o -print"), ""},
		{splitArgv("find . -exec id ;"), "unseen_arguments"},
		{splitArgv("find . -type f -exec rm {} +"), "unseen_arguments"},
		{splitArgv("find . -name *.txt -exec cat {} +"), "unseen_arguments"},        // a match may be a link
		{splitArgv("find . -type l -exec cat {} +"), "unseen_arguments"},            // links
		{splitArgv("find . -type f,l -exec cat {} +"), "unseen_arguments"},          // links too
		{splitArgv("find . ! -type f -exec cat {} +"), "unseen_arguments"},          // not files
		{splitArgv("find . -name x -o -type f -exec cat {} ;"), "unseen_arguments"}, // x may be a link
		{splitArgv("find . ( -type f -o -type l ) -exec cat {} ;"), "unseen_arguments"},
		{splitArgv("find . -exec cat {} ; -type f"), "unseen_arguments"},           // the test comes after
		{splitArgv("find . -type f -exec cat {}.orig ;"), "unseen_arguments"},      // not the file found
		{splitArgv("find . -type f -exec /bin/cat {} ;"), "unseen_arguments"},      // named by a path
		{splitArgv("find . -type f -exec sed -i s/a/b/ {} +"), "unseen_arguments"}, // writes
		{splitArgv("find . -exec cat {} ; -exec cat {} ;"), CodeBadUsage},
		{splitArgv("find . -exec cat {}"), CodeBadUsage},
		{splitArgv("find . -exec ;"), CodeBadUsage},
		{splitArgv("find . -type f -exec cat + ;"), ""}, // + ends it only after {}
		{splitArgv("find . -ok rm {} ;"), CodeForbiddenFlag},
		{splitArgv("find . -okdir rm {} ;"), CodeForbiddenFlag},
		{splitArgv("find . -delete"), CodeDestructive}, // asks, as rm does
		{splitArgv("find .git -delete"), "protected_path"},
		{splitArgv("find . -fprint x"), CodeForbiddenFlag},
		{splitArgv("find . -fprint0 x"), CodeForbiddenFlag},
		{splitArgv("find . -fls x"), CodeForbiddenFlag},
		{splitArgv("find . -fprintf out.txt %p"), CodeForbiddenFlag},
		{splitArgv("find -files0-from list"), CodeForbiddenFlag},
		{splitArgv("find . -files0-from list"), CodeForbiddenFlag},
		// The shell word "-"exec reaches find, and vtexec, as -exec.
		{[]string{"find", ".", "-exec", "id", ";"}, "unseen_arguments"},
		// Symbolic links out.
		{splitArgv("find -L ."), CodeForbiddenFlag},
		{splitArgv("find -H -L . -name x"), CodeForbiddenFlag},
		{splitArgv("find . -follow"), CodeForbiddenFlag},
		// Unknown words.
		{splitArgv("find . -foo"), CodeUnknownFlag},
		{splitArgv("find . --exec id ;"), CodeUnknownFlag},
		{splitArgv("find . -newertm x"), CodeUnknownFlag},
		{splitArgv("find . -newerXa file.txt"), CodeUnknownFlag},
		{splitArgv("find . ---noop"), CodeUnknownFlag},
		{splitArgv("find -X ."), CodeUnknownFlag},
		// Argument counts and shape.
		{splitArgv("find . -name"), CodeBadUsage},
		{splitArgv("find . -newer"), CodeBadUsage},
		{splitArgv("find . -type f -printf"), CodeBadUsage},
		{splitArgv("find -D"), CodeBadUsage},
		{splitArgv("find . -name x src"), CodeBadUsage},
		{splitArgv("find . -print -"), CodeBadUsage},
		{splitArgv("find . -name -exec id ;"), CodeBadUsage}, // id is then a stray word
		// Paths.
		{splitArgv("find / -name passwd"), codeOutside},
		{splitArgv("find /etc -name x"), codeOutside},
		{splitArgv("find . .. -name x"), codeOutside},
		{splitArgv("find out -name x"), codeOutside},
		{splitArgv("find -H out"), codeOutside},
		{splitArgv("find . -newer /etc/passwd"), codeOutside},
		{splitArgv("find . -anewer out/passwd"), codeOutside},
		{splitArgv("find . -cnewer ../x"), codeOutside},
		{splitArgv("find . -samefile /etc/passwd"), codeOutside},
		{splitArgv("find . -newerma /etc/passwd"), codeOutside},
	})
}

// The command -exec runs is written in its canonical form, as a
// wrapper's is, wherever it stands in find's expression; the rest of
// find's words stay as typed.
func TestFindExecCanonical(t *testing.T) {
	ws := searchWorkspace(t)
	got := Canonical("find", splitArgv("find . -type f -exec head --lines 2 {} + -print"), ws)
	assert.Equal(t, splitArgv("find . -type f -exec head --lines=2 {} + -print"), got)
	got = Canonical("find", splitArgv("find . -name --lines -print"), ws)
	assert.Equal(t, splitArgv("find . -name --lines -print"), got, "no -exec: as typed")
}
