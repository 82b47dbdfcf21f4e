package security

import "testing"

// Read-only tools (tree du stat file sort uniq nl cut tr): their operands
// are confined, and every flag that writes a file, reads one, follows
// links or runs a program is confined or refused.
var readtoolsCases = []tableCase{
	// A short option's value written with "=" (-f=PATH): GNU tools take
	// "=PATH" as the name, ripgrep's parser drops the "=".
	{"rg -e '(' -f=/etc/shadow src", deny("bad_usage")},
	{"rg -f=../ws2/secret.txt src", deny("bad_usage")},
	{"sort -o=out.txt file.txt", deny("bad_usage")},
	{"cut -d= -f1 file.txt", allow},
	// tree --info reads .info files, following links.
	{"tree --info src", deny("forbidden_flag")},
	// Checksum programs: --check reads file names from a file.
	{"sha256sum -c file.txt", deny("forbidden_flag")},
	{"md5sum -bc file.txt", deny("forbidden_flag")},
	{"sha256sum ../ws2/secret.txt", deny("outside_workspace")},
	{"tac inner/../../ws2/secret.txt", deny("outside_workspace")},
	// Everyday use stays allowed.
	{"sha256sum README.md src/a.txt", allow},
	{"tac file.txt | head -n 3", allow},
	{"numfmt --to=iec 1048576", allow},
	{"tree", allow},
	{"tree -L 2 src", allow},
	{"tree -a -I '.git|node_modules' --dirsfirst", allow},
	{"tree -J --noreport docs", allow},
	{"tree -o listing.txt src", allow},
	{"tree --fromfile file.txt", allow},
	{"du -sh .", allow},
	{"du -h -d 1 src docs", allow},
	{"stat README.md", allow},
	{"stat -c '%s %n' src/a.txt src/b.go", allow},
	{"stat -L inner", allow},
	{"file src/b.go README.md", allow},
	{"file -b --mime-type src/a.txt", allow},
	{"sort file.txt", allow},
	{"sort -rn -k2 -t, file.txt | uniq -c", allow},
	{"sort -u -o file.txt file.txt", allow},
	{"sort -T src file.txt", allow},
	{"uniq -c file.txt", allow},
	{"uniq file.txt deduped.txt", allow},
	{"nl -ba README.md", allow},
	{"cut -d: -f1 file.txt", allow},
	{"cat file.txt | tr a-z A-Z", allow},
	{"tr -d '\\r' < file.txt > clean.txt", allow},
	{"ls src | sort | uniq | nl | cut -c1-20", allow},

	// tree: writes, link-following, files it reads.
	{"tree -o /tmp/x", deny("outside_workspace")},
	{"tree -o .git/hooks/pre-commit src", deny("protected_path")},
	{"tree -ao .git/config", deny("protected_path")}, // -o takes the next word
	{"tree -oa .vtexec/policy.toml", deny("protected_path")},
	{"tree -o .git/lnk", deny("protected_path")},
	{"tree -l", deny("forbidden_flag")},
	{"tree -al escape", deny("forbidden_flag")},
	{"tree -R -H . -L 1", deny("forbidden_flag")},
	{"tree escape", deny("outside_workspace")},
	{"tree sibling", deny("outside_workspace")},
	{"tree ..", deny("outside_workspace")},
	{"tree -- /", deny("outside_workspace")},
	{"tree --fromfile /etc/passwd", deny("outside_workspace")},
	{"tree --fromfile escape/shadow", deny("outside_workspace")},
	{"tree -H . --hintro /etc/passwd", deny("outside_workspace")},
	{"tree --houtro=sibling/secret.txt", deny("outside_workspace")},
	{"tree --gitfile ~/.gitignore", deny("outside_workspace")},
	{"tree --infofile=../ws2/secret.txt", deny("outside_workspace")},
	{"tree --output x", deny("unknown_flag")},

	// du: link-following and name lists.
	{"du -L .", deny("forbidden_flag")},
	{"du -shL src", deny("forbidden_flag")},
	{"du --files0-from=file.txt", deny("forbidden_flag")},
	{"du -X /etc/passwd .", deny("outside_workspace")},
	{"du --exclude-from=sibling/secret.txt .", deny("outside_workspace")},
	{"du -sh /", deny("outside_workspace")},
	{"du -D escape", deny("outside_workspace")},

	// stat: operands are resolved, so -L cannot leave.
	{"stat /etc/shadow", deny("outside_workspace")},
	{"stat -L escape", deny("outside_workspace")},
	{"stat ~/.ssh/id_rsa", deny("outside_workspace")},
	{"stat --printf '%n' up/ws2/secret.txt", deny("outside_workspace")},

	// file: decompressors, magic and name files.
	{"file -z src/a.txt", deny("forbidden_flag")},
	{"file -Z src/a.txt", deny("forbidden_flag")},
	{"file -m file.txt README.md", deny("forbidden_flag")},
	{"file -m /etc/passwd README.md", deny("forbidden_flag")},
	{"file -f file.txt", deny("forbidden_flag")},
	{"file -C -m file.txt", deny("forbidden_flag")},
	{"file -S README.md", deny("forbidden_flag")},
	{"file -L escape/passwd", deny("outside_workspace")},
	{"file /proc/self/environ", deny("outside_workspace")},

	// sort: programs, writes, temporaries, random source, name lists.
	{"sort --compress-program=sh file.txt", deny("forbidden_flag")},
	{"sort --compress-program bash -S 1 file.txt", deny("forbidden_flag")},
	{"sort --files0-from=file.txt", deny("forbidden_flag")},
	{"sort -o /etc/passwd file.txt", deny("outside_workspace")},
	{"sort -o ~/.bashrc file.txt", deny("outside_workspace")},
	{"sort file.txt -o .git/hooks/pre-commit", deny("protected_path")},
	{"sort -uo.git/config file.txt", deny("protected_path")},
	{"sort --output=escape/cron.d/x file.txt", deny("outside_workspace")},
	{"sort -T /tmp file.txt", deny("outside_workspace")},
	{"sort --temporary-directory=.git file.txt", deny("protected_path")},
	{"sort -R --random-source=/dev/urandom file.txt", deny("outside_workspace")},
	{"sort /etc/passwd", deny("outside_workspace")},
	{"sort --out=x file.txt", deny("unknown_flag")},

	// uniq: OUTPUT is a write; +N would shift the operands.
	{"uniq file.txt /tmp/out", deny("outside_workspace")},
	{"uniq file.txt .git/config", deny("protected_path")},
	{"uniq - .git/hooks/post-merge", deny("protected_path")},
	{"uniq file.txt escape/motd", deny("outside_workspace")},
	{"uniq +0 file.txt .git/config", deny("forbidden_flag")},
	{"uniq +1 file.txt", deny("forbidden_flag")},
	{"uniq a b c", deny("bad_usage")},
	{"uniq ../ws2/secret.txt", deny("outside_workspace")},

	// nl, cut: files they read.
	{"nl /etc/passwd", deny("outside_workspace")},
	{"nl -ba sibling/secret.txt", deny("outside_workspace")},
	{"cut -d: -f1 /etc/passwd", deny("outside_workspace")},
	{"cut -c1- escape/shadow", deny("outside_workspace")},

	// tr reads standard input only; its sets are text.
	{"tr /etc/passwd x < file.txt", allow},
	{"tr a b < /etc/passwd", deny("outside_workspace")},
	{"tr a b > .git/config", deny("protected_path")},
	{"tr --dele a", deny("unknown_flag")},
}

func TestReadtools(t *testing.T) { checkTable(t, readtoolsCases) }
