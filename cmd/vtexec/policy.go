package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/execpolicy"
	"github.com/vtexec/vtexec/internal/display"
	"github.com/vtexec/vtexec/validators"
	"github.com/vtexec/vtexec/workspace"
)

func cmdPolicy(ctx context.Context, args []string, stdout io.Writer) (int, error) {
	if len(args) == 0 {
		return 0, &usageError{"policy needs a subcommand: allow, list, explain, check, trust or commands"}
	}
	switch args[0] {
	case "-h", "--help", "help":
		return 0, &helpRequested{policyUsage()}
	case "commands":
		return policyCommands(args[1:], stdout)
	case "allow":
		return policyAllow(args[1:], stdout)
	case "root":
		if len(args) < 2 || args[1] != "add" {
			if len(args) >= 2 && (args[1] == "-h" || args[1] == "--help") {
				return 0, &helpRequested{policyUsage()}
			}
			return 0, &usageError{"policy root takes one subcommand: vtexec policy root add [--read-only] PATH"}
		}
		return policyRootAdd(args[2:], stdout)
	case "list":
		return policyList(args[1:], stdout)
	case "explain":
		return policyExplain(ctx, args[1:], stdout)
	case "check":
		return policyCheck(args[1:], stdout)
	case "trust":
		return policyTrust(args[1:], stdout)
	}
	return 0, &usageError{fmt.Sprintf("unknown policy subcommand %q", args[0])}
}

// policyUsage is the policy lines of the usage text.
func policyUsage() string {
	var b strings.Builder
	b.WriteString("usage: vtexec policy SUBCOMMAND [flags]\n\n")
	for _, line := range strings.Split(usage, "\n") {
		if strings.Contains(line, "vtexec policy ") {
			b.WriteString(line + "\n")
		}
	}
	b.WriteString("\nvtexec policy SUBCOMMAND --help lists its flags.\n")
	return b.String()
}

// policyFiles opens the workspace and returns its policy layers.
func policyFiles(wsDir string) (*workspace.Workspace, vtexec.PolicyFiles, error) {
	ws, err := workspace.New(wsDir)
	if err != nil {
		return nil, vtexec.PolicyFiles{}, fmt.Errorf("workspace: %w", err)
	}
	files, err := vtexec.PolicyFilesFor(ws.Root())
	return ws, files, err
}

// policyAllow records an allow rule ahead of time, the same rule an
// "always" answer would record.
func policyAllow(args []string, stdout io.Writer) (int, error) {
	fs := newFlags("policy allow")
	wsDir := fs.String("workspace", ".", "workspace root")
	scope := fs.String("scope", "local", "local (.vtexec/policy.local.toml), project (.vtexec/policy.toml) or user")
	network := fs.Bool("network", false, "let the commands the rule allows use the network (npm install, pip install, go mod download); everything else runs without it")
	anyArgs := fs.Bool("any-arguments", false, "allow every use of PROGRAM (give the program alone); not offered for programs that remove files or rewrite history")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	words := fs.Args()
	if len(words) == 0 {
		return 0, &usageError{"name the program: vtexec policy allow -- PROGRAM [ARGUMENTS...]"}
	}
	if len(words) > 1 && *anyArgs {
		return 0, &usageError{"--any-arguments takes the program alone: vtexec policy allow --any-arguments -- " + words[0]}
	}
	_, files, err := policyFiles(*wsDir)
	if err != nil {
		return 0, err
	}
	target := map[string]string{"local": files.ProjectLocal, "project": files.Project, "user": files.User}[*scope]
	if target == "" {
		return 0, &usageError{"--scope is local, project or user"}
	}
	cat := execpolicy.Commands()
	for _, f := range cat.Forbidden {
		if f.Program == words[0] {
			return 0, fmt.Errorf("%s is refused whatever the policy says: %s", words[0], f.Reason)
		}
	}
	root, _ := filepath.Abs(*wsDir)
	ws, err := workspace.New(root)
	if err != nil {
		return 0, err
	}
	// The program as the check finds it: the rule must name what runs.
	prog, err := (&execpolicy.Checker{}).Program(words[0], ws)
	if err != nil {
		return 0, fmt.Errorf("no rule for %s: %v", words[0], err)
	}
	// The rule a person's "always" answer records for the same command:
	// a program with subcommands gets its subcommand words (and any later
	// arguments); any other program, its exact arguments.
	// The command as vtexec checks and runs it: its canonical form.
	words = validators.Canonical(filepath.Base(words[0]), words, nil)
	r := execpolicy.RuleFor(execpolicy.Part{Argv: words, Program: prog}, root)
	if *anyArgs {
		if why := execpolicy.NoAnyArguments(filepath.Base(prog)); why != "" {
			return 0, fmt.Errorf("%s cannot be allowed with any arguments: %s; allow the exact command instead: vtexec policy allow -- %s ARGUMENTS", words[0], why, words[0])
		}
		r = execpolicy.PolicyRule{Program: prog, Decision: execpolicy.RuleAllow}
	}
	r.Network = *network
	var added, trusted bool
	if *scope == "user" {
		added, err = execpolicy.AppendRule(target, r, "added by vtexec policy allow")
		trusted = true
	} else {
		added, trusted, err = execpolicy.TrustStore{Path: files.TrustStore}.AppendTrustedRule(target, r, "added by vtexec policy allow")
	}
	if err != nil {
		return 0, err
	}
	if added {
		fmt.Fprintf(stdout, "added %q to %s\n", r.String(), target)
	} else {
		fmt.Fprintf(stdout, "%q is already in %s\n", r.String(), target)
	}
	if !trusted {
		fmt.Fprintf(stdout, "%s holds rules you have not vouched for, so this one waits too: review the file, then run vtexec policy trust\n", target)
	}
	return 0, nil
}

// policyRootAdd adds an extra directory commands may use, read-write or
// read-only, to a policy file.
func policyRootAdd(args []string, stdout io.Writer) (int, error) {
	fs := newFlags("policy root add")
	wsDir := fs.String("workspace", ".", "workspace root")
	scope := fs.String("scope", "local", "local (.vtexec/policy.local.toml), project (.vtexec/policy.toml) or user (every workspace)")
	readOnly := fs.Bool("read-only", false, "commands may read the directory but not change it")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if fs.NArg() != 1 {
		return 0, &usageError{"name one directory: vtexec policy root add [--read-only] PATH"}
	}
	dir, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		return 0, err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return 0, &vtexec.RequestError{Code: codes.BadRequest, Reason: fmt.Sprintf("%s is not a directory", dir), Hint: "name an existing directory"}
	}
	if dir == "/" {
		return 0, &vtexec.RequestError{Code: codes.BadRequest, Reason: "the root directory cannot be a root of the workspace", Hint: "name the directory the commands need"}
	}
	_, files, err := policyFiles(*wsDir)
	if err != nil {
		return 0, err
	}
	for _, own := range []string{files.User, files.TrustStore} {
		if own != "" && (own == dir || strings.HasPrefix(own, dir+"/")) {
			return 0, &vtexec.RequestError{Code: codes.BadRequest, Reason: fmt.Sprintf("%s holds vtexec's own files (%s), which no command may reach", dir, own),
				Hint: "name a directory that does not hold vtexec's configuration or state"}
		}
	}
	target := map[string]string{"local": files.ProjectLocal, "project": files.Project, "user": files.User}[*scope]
	if target == "" {
		return 0, &usageError{"--scope is local, project or user"}
	}
	root := execpolicy.PolicyRoot{Path: dir, Access: "read-write"}
	if *readOnly {
		root.Access = "read-only"
	}
	var added, trusted bool
	if *scope == "user" {
		added, err = execpolicy.AppendRoot(target, root, "added by vtexec policy root add")
		trusted = true
	} else {
		added, trusted, err = execpolicy.TrustStore{Path: files.TrustStore}.AppendTrustedRoot(target, root, "added by vtexec policy root add")
	}
	if err != nil {
		return 0, err
	}
	what := fmt.Sprintf("root %s (%s)", root.Path, root.Access)
	if added {
		fmt.Fprintf(stdout, "added %s to %s\n", what, target)
	} else {
		fmt.Fprintf(stdout, "%s is already in %s\n", what, target)
	}
	if !trusted {
		fmt.Fprintf(stdout, "%s holds rules you have not vouched for, so this root waits too: review the file, then run vtexec policy trust\n", target)
	}
	return 0, nil
}

type listed struct {
	Rules   []listedRule `json:"rules"`
	Ignored []listedRule `json:"ignored_untrusted"`
	Roots   []string     `json:"roots"`
	Timeout string       `json:"timeout,omitempty"`
	Output  int          `json:"max_output,omitempty"`
	Files   []string     `json:"files"`
}

type listedRule struct {
	Rule   string `json:"rule"`
	Where  string `json:"where"`
	Reason string `json:"reason,omitempty"`
}

func policyList(args []string, stdout io.Writer) (int, error) {
	fs := newFlags("policy list")
	wsDir := fs.String("workspace", ".", "workspace root")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	_, files, err := policyFiles(*wsDir)
	if err != nil {
		return 0, err
	}
	pol, err := vtexec.LoadPolicy(files)
	if err != nil {
		return 0, err
	}
	out := listed{Rules: []listedRule{}, Ignored: []listedRule{}, Roots: []string{}, Files: pol.Files, Output: pol.MaxOutput}
	if pol.Timeout > 0 {
		out.Timeout = pol.Timeout.String()
	}
	for _, r := range pol.Rules {
		out.Rules = append(out.Rules, listedRule{r.String(), r.Where(), r.Reason})
	}
	for _, r := range pol.Ignored {
		out.Ignored = append(out.Ignored, listedRule{r.String(), r.Where(), r.Reason})
	}
	for _, r := range pol.Roots {
		out.Roots = append(out.Roots, r.Path+" ("+r.Access+")")
	}
	if *asJSON {
		return 0, encodeJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "files: %s\n", strings.Join(out.Files, " "))
	for _, r := range out.Rules {
		fmt.Fprintf(stdout, "%-40s %s\n", r.Rule, r.Where)
	}
	for _, r := range out.Ignored {
		fmt.Fprintf(stdout, "%-40s %s (ignored: file not trusted; vtexec policy trust)\n", r.Rule, r.Where)
	}
	for _, r := range out.Roots {
		fmt.Fprintf(stdout, "root %s\n", r)
	}
	return 0, nil
}

// policyExplain shows, part by part, what decides a command and why.
func policyExplain(ctx context.Context, args []string, stdout io.Writer) (int, error) {
	fs := newFlags("policy explain")
	wsDir := fs.String("workspace", ".", "workspace root")
	cwd := fs.String("cwd", "", "directory the command starts in")
	session := fs.String("session", "", "use this session's cwd and approvals")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	req, err := commandRequest(fs.Args())
	if err != nil {
		return 0, err
	}
	req.Workspace, req.Cwd, req.Session, req.AuditLog = *wsDir, *cwd, *session, "off"
	d, err := engine().Check(ctx, req)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(stdout, "%s", d.Decision)
	if d.Code != "" {
		fmt.Fprintf(stdout, " (%s): %s", d.Code, display.Text(d.Reason))
	}
	fmt.Fprintln(stdout)
	if d.Rule != "" {
		fmt.Fprintf(stdout, "decided by rule %q at %s\n", d.Rule, d.RuleFile)
	} else {
		fmt.Fprintln(stdout, "decided by the built-in checks (no policy rule matched)")
	}
	for _, a := range d.Asks {
		fmt.Fprintf(stdout, "asks: %s: %s; approving records %q\n", a.Display, display.Text(a.Reason), a.Rule)
	}
	return exitFor(d), nil
}

// policyCheck loads every layer, which runs every rule's examples.
func policyCheck(args []string, stdout io.Writer) (int, error) {
	fs := newFlags("policy check")
	wsDir := fs.String("workspace", ".", "workspace root")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	_, files, err := policyFiles(*wsDir)
	if err != nil {
		return 0, err
	}
	pol, err := vtexec.LoadPolicy(files)
	var re *vtexec.RequestError
	if errors.As(err, &re) {
		fmt.Fprintf(stdout, "invalid: %s\n", display.Text(re.Reason))
		return 1, nil
	}
	if err != nil {
		return 0, err
	}
	if len(pol.Broken) > 0 {
		for _, b := range pol.Broken {
			fmt.Fprintf(stdout, "invalid: %s (commands of %s are refused until it is fixed; others run)\n", display.Text(b.Err.Error()), display.Text(b.Rule.Program))
		}
		return 1, nil
	}
	examples := 0
	for _, r := range append(pol.Rules, pol.Ignored...) {
		examples += len(r.Match) + len(r.NotMatch)
	}
	fmt.Fprintf(stdout, "ok: %d rules (%d ignored as untrusted), %d examples hold, in %d files\n", len(pol.Rules), len(pol.Ignored), examples, len(pol.Files))
	return 0, nil
}

// policyTrust vouches for the project's policy files as they are now.
func policyTrust(args []string, stdout io.Writer) (int, error) {
	fs := newFlags("policy trust")
	wsDir := fs.String("workspace", ".", "workspace root")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	_, files, err := policyFiles(*wsDir)
	if err != nil {
		return 0, err
	}
	ts := execpolicy.TrustStore{Path: files.TrustStore}
	for _, f := range []string{files.Project, files.ProjectLocal} {
		if _, err := execpolicy.LoadPolicy(execpolicy.Layer{Path: f, Trusted: true}); err != nil {
			return 0, err
		}
		if _, err := os.Stat(f); err != nil {
			continue
		}
		if err := ts.Trust(f); err != nil {
			return 0, err
		}
		fmt.Fprintf(stdout, "trusted %s\n", f)
	}
	return 0, nil
}

// policyCommands prints the catalogue straight from the validator specs.
func policyCommands(args []string, stdout io.Writer) (int, error) {
	fs := newFlags("policy commands")
	asJSON := fs.Bool("json", false, "print JSON")
	asMarkdown := fs.Bool("markdown", false, "print the Markdown of docs/commands.md")
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	c := execpolicy.Commands()
	switch {
	case *asJSON:
		return 0, encodeJSON(stdout, c)
	case *asMarkdown:
		_, err := io.WriteString(stdout, c.Markdown())
		return 0, err
	}
	for _, e := range c.Allowed {
		fmt.Fprintf(stdout, "%s: %s\n", e.Program, e.Operands)
		for _, r := range e.Refused {
			fmt.Fprintf(stdout, "  refuses %s: %s\n", r.Flag, r.Reason)
		}
	}
	var names []string
	for _, f := range c.Forbidden {
		names = append(names, f.Program)
	}
	fmt.Fprintf(stdout, "\nrefused programs: %s\n", strings.Join(names, " "))
	fmt.Fprintf(stdout, "developer-tool rules: %d (see --markdown)\n", len(c.DevTools))
	return 0, nil
}
