package vtexec

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/vtexec/vtexec/audit"
	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/confine"
	"github.com/vtexec/vtexec/cwdtrack"
	"github.com/vtexec/vtexec/execpolicy"
	"github.com/vtexec/vtexec/internal/dirwatch"
	"github.com/vtexec/vtexec/internal/fsutil"
	"github.com/vtexec/vtexec/plan"
	"github.com/vtexec/vtexec/workspace"
)

// state is one request on its way through check, ask and run.
type state struct {
	engine *Engine
	req    Request
	src    string
	ws     *workspace.Workspace
	files  PolicyFiles
	// policyWatched: the policy came from an unchanged watch of its files.
	policyWatched bool
	pol           *execpolicy.Policy
	sess          *cwdtrack.Session // nil without --session
	store         cwdtrack.Store
	decided       *execpolicy.Decided
	checker       execpolicy.Checker // the engine's, with the policy's extra PATH
	extra         []string           // the policy's extra PATH directories that exist
	log           *keptLog           // nil when the request is not audited
	note          string             // for the person, set by recordAlways
	rt            *runTime           // set when the request runs in the interpreter
	warnings      []Warning          // failures that did not stop the request
}

func (st *state) warn(code, reason string) {
	st.warnings = append(st.warnings, Warning{Code: code, Reason: reason})
}

// prepare loads everything a decision depends on and decides.
func (e *Engine) prepare(req Request) (*state, error) {
	if e.keepReady {
		confine.NoteRequest() // a helper started ahead waits for a quiet moment
	}
	st := &state{engine: e, req: req}
	var err error
	if st.src, err = source(req); err != nil {
		return nil, err
	}
	if st.ws, err = openWorkspace(req); err != nil {
		return nil, err
	}
	if st.files, err = e.policyFilesFor(st.ws.Root()); err != nil {
		return nil, badRequest("set XDG_CONFIG_HOME and XDG_STATE_HOME", "%v", err)
	}
	if st.pol, st.policyWatched, err = e.policy(st.files); err != nil {
		return nil, err
	}
	for _, r := range st.pol.Roots {
		if err := st.ws.AddRoot(r.Path, r.Access == "read-write"); err != nil {
			return nil, &RequestError{Code: codes.BadPolicy, Reason: fmt.Sprintf("%s: %v", r.File, err), Hint: "fix or remove the [[root]]"}
		}
	}
	st.ws.AddAskNames(st.pol.Protect...)
	// After the roots: a root may not cover vtexec's own files either.
	if err := st.ownFilesOutside(); err != nil {
		return nil, err
	}
	if err := st.extraPath(); err != nil {
		return nil, err
	}
	if err := st.openSession(); err != nil {
		return nil, err
	}
	if req.Cwd != "" {
		if err := chdir(st.ws, req.Cwd, "cwd"); err != nil {
			return nil, err
		}
	}
	if err := st.openAudit(); err != nil {
		return nil, err
	}
	st.ws.SetBudget(checkBudget(req))
	if err := st.decide(); err != nil {
		st.closeLog()
		return nil, err
	}
	return st, nil
}

// decide checks the request and decides it under the policy and the
// session. A fault of vtexec's own while deciding refuses the request
// (check_failed, the stack on standard error), as one in the checker
// does: a stream, a server or a session goes on with the next request.
func (st *state) decide() (err error) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(os.Stderr, "vtexec: deciding a command failed: %v\n%s", p, debug.Stack())
			err = &RequestError{Code: codes.CheckFailed, Reason: fmt.Sprintf("vtexec failed while deciding this command: %v", p),
				Hint: execpolicy.FaultHint}
		}
	}()
	if f := st.engine.decideFault; f != nil {
		f(st.src)
	}
	verdict := st.checker.Check(st.src, st.ws)
	st.decided = st.pol.Apply(verdict, st.sessionRules())
	st.decideRunTime(verdict)
	st.holdEscalated()
	return nil
}

// applied is the check of src in ws under the policy and the session's
// approvals, as prepare decides a request: how every command the
// interpreter reaches, and every shape known before the run, is decided.
func (st *state) applied(src string, ws *workspace.Workspace) *execpolicy.Decided {
	return st.pol.Apply(st.checker.Check(src, ws), st.sessionRules())
}

// The check of one request reads at most checkEntries directory entries
// (its walks and globs together) and takes at most checkTime, or half
// the request's timeout when that is shorter.
const (
	checkEntries = 1_000_000
	checkTime    = 10 * time.Second
)

func checkBudget(req Request) *workspace.Budget {
	limit := checkTime
	if req.Timeout > 0 && req.Timeout/2 < limit {
		limit = req.Timeout / 2
	}
	return workspace.NewBudget(checkEntries, limit)
}

// policyFilesFor is PolicyFilesFor, the last answer kept with what it
// was made from: a stream of checks asks for the same workspace line
// after line.
func (e *Engine) policyFilesFor(root string) (PolicyFiles, error) {
	config, state, home := os.Getenv("XDG_CONFIG_HOME"), os.Getenv("XDG_STATE_HOME"), os.Getenv("HOME")
	e.mu.Lock()
	l := e.lastFiles
	e.mu.Unlock()
	if l != nil && l.root == root && l.config == config && l.state == state && l.home == home {
		return l.files, nil
	}
	files, err := PolicyFilesFor(root)
	if err == nil && runtime.GOOS != "windows" && runtime.GOOS != "plan9" { // where os.UserHomeDir reads HOME
		e.mu.Lock()
		e.lastFiles = &madeFiles{root, config, state, home, files}
		e.mu.Unlock()
	}
	return files, err
}

// madeFiles is a PolicyFilesFor answer and what it was made from.
type madeFiles struct {
	root, config, state, home string
	files                     PolicyFiles
}

// LoadPolicy loads the layers in files; project files count only as far
// as they are trusted.
func LoadPolicy(files PolicyFiles) (*execpolicy.Policy, error) {
	pol, _, _, err := loadPolicy(files)
	return pol, err
}

// loadPolicy reads every layer once, judges trust by the very bytes it
// parses, and returns the identities of the files it read (User, Project,
// ProjectLocal, TrustStore). stable is false when the trust store changed
// during the load, so the result must not be kept.
func loadPolicy(files PolicyFiles) (pol *execpolicy.Policy, ids [4]fsutil.Identity, stable bool, err error) {
	// A project file found trusted by neither read of the store may have
	// been read just before an update replaced it and forgot its hash
	// (the second read came after the update): it is read again then.
	// Unchanged after the second read, it was current at it, and an
	// update forgets a file's hash only once another is renamed in.
	for range maxPolicyRereads {
		var replaced bool
		pol, ids, stable, replaced, err = loadPolicyOnce(files)
		if err != nil || !replaced {
			return pol, ids, stable, err
		}
	}
	return pol, ids, false, err
}

// maxPolicyRereads bounds loadPolicy's reads: past them, what was read
// stands (an untrusted file's allow rules ignored), and is not kept.
const maxPolicyRereads = 8

// loadPolicyOnce is one read of loadPolicy's; replaced reports a project
// file trusted by neither read of the store that was replaced since it
// was read.
func loadPolicyOnce(files PolicyFiles) (pol *execpolicy.Policy, ids [4]fsutil.Identity, stable, replaced bool, err error) {
	ts := execpolicy.TrustStore{Path: files.TrustStore}
	// The store is read before the project files and, if they are not
	// trusted by it, once more after: an update that adds a rule trusts
	// the new content before renaming it in, so one of the two reads
	// trusts whichever content was read.
	before, tsID, err := ts.Snapshot()
	if err != nil {
		return nil, ids, false, false, trustStoreError(err)
	}
	layers := []execpolicy.Layer{{Path: files.User, Trusted: true, FollowLink: true, Loaded: true}}
	layers[0].Data, ids[0], err = execpolicy.ReadLayer(files.User, true)
	if err != nil {
		return nil, ids, false, false, policyError(err)
	}
	var after execpolicy.TrustSnapshot
	stable = true
	for i, f := range []string{files.Project, files.ProjectLocal} {
		l := execpolicy.Layer{Path: f, Loaded: true}
		if l.Data, ids[1+i], err = execpolicy.ReadLayer(f, false); err != nil {
			return nil, ids, false, false, policyError(err)
		}
		layers = append(layers, l)
	}
	for i := range layers[1:] {
		l := &layers[1+i]
		l.Trusted = before.Trusts(l.Path, l.Data)
		if !l.Trusted {
			if after == nil {
				var afterID fsutil.Identity
				if after, afterID, err = ts.Snapshot(); err != nil {
					return nil, ids, false, false, trustStoreError(err)
				}
				stable = afterID == tsID
			}
			l.Trusted = after.Trusts(l.Path, l.Data)
			if !l.Trusted && l.Data != nil {
				now, err := fsutil.Stat(l.Path, false)
				replaced = replaced || err != nil || now != ids[1+i]
			}
		}
	}
	ids[3] = tsID
	if pol, err = execpolicy.LoadPolicy(layers...); err != nil {
		return nil, ids, false, false, policyError(err)
	}
	return pol, ids, stable, replaced, nil
}

func policyError(err error) error {
	return &RequestError{Code: codes.BadPolicy, Reason: err.Error(),
		Hint: "fix the policy file (a regular file of at most 1 MiB; vtexec follows no symbolic link in .vtexec/); vtexec runs nothing until it loads (vtexec policy check)"}
}

func trustStoreError(err error) error {
	return &RequestError{Code: codes.BadPolicy, Reason: "trust store: " + err.Error(),
		Hint: "fix or remove the trust store (then run vtexec policy trust again)"}
}

// identities stats the files loadPolicy reads, the way it reads them.
func (f PolicyFiles) identities() (ids [4]fsutil.Identity, err error) {
	for i, p := range []string{f.User, f.Project, f.ProjectLocal, f.TrustStore} {
		if ids[i], err = fsutil.Stat(p, i == 0); err != nil {
			return ids, err
		}
	}
	return ids, nil
}

// settle is how long a file must have stayed unchanged before a loaded
// policy is kept by its identity: a file written twice within one
// timestamp tick, at the same size, would otherwise look unchanged.
const settle = 2 * time.Second

// maxCached bounds the policies an Engine keeps (one per workspace).
const maxCached = 64

// cachedPolicy is a loaded policy and the identities of the files it was
// loaded from.
type cachedPolicy struct {
	ids [4]fsutil.Identity
	pol *execpolicy.Policy
	// w, once the identities were found unchanged with it watching since
	// before, stands for them until it sees a change (watchPolicyFiles).
	w *dirwatch.Watch
}

// policy returns the workspace's policy: the one loaded before if every
// file it came from still has the identity it had then (one stat each,
// or none while a watch of them has seen no change), else a fresh load.
//
// watched reports that the policy came from a watch of the files that
// has seen no change since it was made: every directory on the way to
// them has been a directory, or missing, all along.
func (e *Engine) policy(files PolicyFiles) (pol *execpolicy.Policy, watched bool, err error) {
	key := files.User + "\x00" + files.Project + "\x00" + files.ProjectLocal + "\x00" + files.TrustStore
	e.mu.Lock()
	c, ok := e.policies[key]
	if ok && c.w != nil {
		if !c.w.Changed() {
			e.mu.Unlock()
			return c.pol, true, nil
		}
		c.w.Close()
		c.w = nil
	}
	e.mu.Unlock()
	var w *dirwatch.Watch
	if ok {
		// Asked again: watched from before the stat, so that a change
		// after it shows.
		w = watchPolicyFiles(files)
	}
	e.stats.Add(1)
	cur, statErr := files.identities()
	if ok && statErr == nil && c.ids == cur {
		e.mu.Lock()
		if e.policies[key] == c && c.w == nil {
			c.w, w = w, nil
		}
		e.mu.Unlock()
		w.Close()
		return c.pol, false, nil
	}
	w.Close()
	e.loads.Add(1)
	pol, ids, stable, err := loadPolicy(files)
	if err != nil {
		return nil, false, err
	}
	now := time.Now()
	keep := stable
	for _, id := range ids {
		keep = keep && !id.Recent(now, e.settle)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if old := e.policies[key]; old != nil {
		old.w.Close()
		delete(e.policies, key)
	}
	if keep {
		if len(e.policies) >= maxCached {
			e.forgetPolicies()
		}
		e.policies[key] = &cachedPolicy{ids: ids, pol: pol}
	}
	return pol, false, nil
}

// forgetPolicies drops the policies kept; e.mu is held.
func (e *Engine) forgetPolicies() {
	for _, c := range e.policies {
		c.w.Close()
	}
	clear(e.policies)
}

// watchPolicyFiles watches what could change the files a policy is
// loaded from: each file's name in its directory, a write to it
// included, and each directory on the way there by its name in the one
// above, from the root down, so that no component can be made, removed,
// renamed or replaced unseen. The first component missing is watched by
// its name in the directory above; below it nothing can be there. It is
// nil where a component is a link or a directory cannot be watched, or
// the user's file is a link (what it leads to can change elsewhere):
// the identities are compared then.
func watchPolicyFiles(files PolicyFiles) *dirwatch.Watch {
	w := dirwatch.New()
	if w == nil {
		return nil
	}
	for _, f := range []string{files.User, files.Project, files.ProjectLocal, files.TrustStore} {
		if !watchPathTo(w, f) {
			w.Close()
			return nil
		}
	}
	if fi, err := os.Lstat(files.User); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		w.Close()
		return nil
	}
	return w
}

// watchPathTo adds the names on the way to the file p to w, as
// watchPolicyFiles says, and reports whether it could.
func watchPathTo(w *dirwatch.Watch, p string) bool {
	if !filepath.IsAbs(p) {
		return false
	}
	p = filepath.Clean(p)
	dir := "/"
	for _, name := range strings.Split(p[1:], "/") {
		last := dir == filepath.Dir(p)
		if !w.AddNames(dir, last, name) {
			// dir is missing (watched by name above: fine), or a link, a
			// file or a directory this user cannot read (not fine).
			_, err := os.Lstat(dir)
			return errors.Is(err, fs.ErrNotExist)
		}
		dir = filepath.Join(dir, name)
	}
	return true
}

func (st *state) openSession() error {
	if st.req.Session == "" {
		return nil
	}
	store, err := sessionStore()
	if fsutil.Unwritable(err) {
		st.warnUnwritable(err)
		return nil
	}
	if err != nil {
		return badRequest("set XDG_STATE_HOME", "%v", err)
	}
	if real, err := st.engine.watchedReal(store.Dir); err == nil && st.ws.Holds(real) {
		return badRequest("set XDG_STATE_HOME to a directory outside the workspace",
			"the session state directory %s is inside the workspace, where commands could read the session token", store.Dir)
	}
	st.store = store
	st.sess, err = store.LoadCached(&st.engine.sessions, st.req.Session, st.ws.Root())
	if fsutil.Unwritable(err) {
		// A new session whose file cannot be written: the command runs,
		// without a session (no cd or session approval carries over).
		st.store, st.sess = cwdtrack.Store{}, nil
		st.warnUnwritable(err)
		return nil
	}
	if err != nil {
		if se := stateError(err, "remove or fix the session file, or use another --session id"); se != nil {
			return se
		}
		return badRequest("use another --session id, or the workspace it was started in", "session: %v", err)
	}
	if st.req.Cwd == "" && st.sess.Cwd != st.ws.Root() {
		return chdir(st.ws, st.sess.Cwd, "session cwd (pass --cwd to reset it)")
	}
	return nil
}

// watchedReal is workspace.Real(p) for a directory of vtexec's own,
// asked about on every request of a session: from the second time, the
// answer is kept while a watch of the way to p (each component's name in
// the directory above it) sees no entry made, removed or renamed, which
// is how a component becomes a link elsewhere.
func (e *Engine) watchedReal(p string) (string, error) {
	if real, ok := e.reals.Get(p); ok {
		return real, nil
	}
	var w *dirwatch.Watch // before the walk: a change during it shows later
	if e.reals.Again(p) {
		if w = dirwatch.NewEntries(); !w.AddPaths(p) {
			w.Close()
			w = nil
		}
	}
	real, err := workspace.Real(p)
	if err != nil {
		w.Close()
		return "", err
	}
	e.reals.Put(p, real, w)
	return real, nil
}

func (st *state) sessionRules() []execpolicy.PolicyRule {
	if st.sess == nil {
		return nil
	}
	var rules []execpolicy.PolicyRule
	for _, a := range st.sess.Approvals {
		r := execpolicy.PolicyRule{Program: a.Program, Subcommand: a.Subcommand, Decision: execpolicy.RuleAllow, File: "session " + st.sess.ID,
			Shaped: a.Shaped, Flags: a.Flags, Operands: a.Operands, AnyOperands: a.AnyOperands, Bound: a.Bound}
		if a.Exact {
			r.Argv = append([]string{}, a.Argv...)
		}
		rules = append(rules, r)
	}
	return rules
}

// decision shapes the decided verdict for callers.
func (st *state) decision() Decision {
	v := st.decided
	d := Decision{Cmd: st.src, Decision: v.Decision, Code: v.Code, Reason: v.Reason, Hint: v.Hint,
		Commands: []Command{}, NeverAlways: v.NeverAlways}
	if v.Plan != nil {
		for _, c := range v.Plan.Commands() {
			d.Commands = append(d.Commands, Command{Argv: c.Argv, Program: c.Program, Builtin: c.Builtin, Env: c.Env, Redirects: redirectWords(c.Redirects, st.ws)})
		}
	}
	if r := v.DecidingRule(); r != nil {
		d.Rule, d.RuleFile = r.String(), r.Where()
	}
	if st.rt != nil {
		d.RunTime = append([]string{}, st.rt.words...)
		for _, sh := range st.rt.shapes {
			if len(sh.Words) > 0 {
				d.Commands = append(d.Commands, Command{Argv: shapeWords(sh), Source: sh.Source})
			}
		}
	}
	if v.Decision == execpolicy.Ask {
		for _, p := range v.Parts {
			if p.Decision == execpolicy.Ask {
				r := execpolicy.RuleFor(p, st.ws.Cwd())
				d.Asks = append(d.Asks, Ask{Argv: p.Argv, Display: DisplayArgv(p.Argv), Reason: p.Reason, Code: p.Code,
					Rule: r.String(), Covers: r.Covers(), Shaped: r.Shaped, Exact: r.Argv != nil, NeverAlways: p.NeverAlways,
					Network: execpolicy.NeedsNetwork(p) && !v.Network[p.Cmd]})
			}
		}
	}
	return d
}

// ask puts the question to a person and records the answer.
func (st *state) ask(ctx context.Context, ap Approver, d Decision) (Decision, error) {
	if ap == nil {
		return needsApproval(d), nil
	}
	answer, err := ap.Approve(ctx, st.question(d))
	if errors.Is(err, ErrCannotAsk) {
		return needsApproval(d), nil
	}
	if err != nil || answer == AnswerDeny || answer == "" {
		d.Decision, d.Approval = VerdictDeny, string(AnswerDeny)
		d.Code = CodeDeniedByUser
		d.Reason = "a person refused: " + d.Reason
		d.Hint = "do something else, or ask the user why"
		if err != nil {
			d.Reason = "no answer (" + err.Error() + "): " + d.Reason
		}
		return d, nil
	}
	if answer == AnswerAlways && d.NeverAlways {
		return d, errors.New("approver answered always to a question that does not allow it")
	}
	if answer == AnswerNetwork {
		if !askNeedsNetwork(d) {
			return d, errors.New("approver answered network to a question that does not offer it")
		}
		st.grantNetwork()
	}
	switch answer {
	case AnswerSession:
		if err := st.recordSession(); err != nil {
			return d, err
		}
		if resetsEscalation(d) {
			if err := st.resetSession("a person's \"session\" answer"); err != nil {
				return d, err
			}
		}
	case AnswerAlways:
		if err := st.recordAlways(); err != nil {
			return d, err
		}
	case AnswerOnce, AnswerNetwork:
	default:
		return d, fmt.Errorf("unknown answer %q", answer)
	}
	d.Decision, d.Code, d.Reason, d.Hint, d.Approval = VerdictAllow, "", "", "", string(answer)
	d.Note = st.note
	return d, nil
}

// askNeedsNetwork reports whether a part asked about fetches from the
// network.
func askNeedsNetwork(d Decision) bool {
	for _, a := range d.Asks {
		if a.Network {
			return true
		}
	}
	return false
}

// grantNetwork gives the network, for this run, to the asking parts that
// fetch from it.
func (st *state) grantNetwork() {
	for _, p := range st.askingParts() {
		if execpolicy.NeedsNetwork(p) {
			if st.decided.Network == nil {
				st.decided.Network = map[int]bool{}
			}
			st.decided.Network[p.Cmd] = true
		}
	}
}

// CodeRanWithoutNetwork warns that a command that fetches from the
// network ran without it and failed.
const CodeRanWithoutNetwork = codes.RanWithoutNetwork

// warnWithoutNetwork says, after a failed run, which of its commands
// fetch from the network and ran without it: their failure may be that.
func (st *state) warnWithoutNetwork() {
	for _, p := range st.decided.Parts {
		if p.Decision != execpolicy.Deny && execpolicy.NeedsNetwork(p) && !st.decided.Network[p.Cmd] {
			st.warn(CodeRanWithoutNetwork, fmt.Sprintf("%s fetches from the network and ran without it (vtexec gives the network only to a command a person granted it): if it failed for that, ask the person to answer network, or to run vtexec policy allow --network -- %s", DisplayArgv(p.Argv[:1]), DisplayArgv(p.Argv)))
			return
		}
	}
}

// NeedsApproval turns an ask into the deny given where no person can be
// asked: code needs_approval, with a hint on how to approve it ahead.
func NeedsApproval(d Decision) Decision { return needsApproval(d) }

func needsApproval(d Decision) Decision {
	asked := d.Hint
	d.Decision = VerdictDeny
	d.Reason = "needs a person's approval, and none can be asked here: " + d.Reason
	if d.Code == CodeSessionEscalated {
		return d // its own code and hint: no rule approved ahead lifts it, only a reset
	}
	d.Code = CodeNeedsApproval
	hints := []string{}
	never := d.NeverAlways
	for _, a := range d.Asks {
		never = never || a.NeverAlways
	}
	for _, a := range d.Asks {
		switch {
		case never:
			// One part no rule lifts: no line would make it pass.
		case a.Network:
			hints = append(hints, "vtexec policy allow --network -- "+a.Display)
		case a.Shaped || a.Exact:
			// The command itself: policy allow records from it the rule
			// "session" or "always" would.
			hints = append(hints, "vtexec policy allow -- "+a.Display)
		default:
			hints = append(hints, "vtexec policy allow -- "+ruleWords(a.Rule))
		}
	}
	if len(hints) > 0 {
		d.Hint = "run it in a terminal to be asked, or approve it ahead: " + joinHints(hints)
	} else if never {
		d.Hint = "run it in a terminal to be asked; this command cannot be approved always"
	} else {
		d.Hint = "run it in a terminal to be asked; an approval covers exactly these arguments"
	}
	if asked != "" {
		// What check would have said: often a way that needs no approval.
		d.Hint += "; or: " + asked
	}
	return d
}

// askingParts are the parts a person is asked about.
func (st *state) askingParts() []execpolicy.Part {
	var out []execpolicy.Part
	for _, p := range st.decided.Parts {
		if p.Decision == execpolicy.Ask {
			out = append(out, p)
		}
	}
	return out
}

func (st *state) recordSession() error {
	if st.sess == nil {
		return nil // without --session, "session" lasts this call
	}
	sess, err := st.store.Update(st.sess.ID, st.ws.Root(), func(s *cwdtrack.Session) error {
		for _, p := range st.askingParts() {
			r := execpolicy.RuleFor(p, st.ws.Cwd())
			s.Approvals = append(s.Approvals, cwdtrack.Approval{Program: r.Program, Subcommand: r.Subcommand, Argv: r.Argv, Exact: r.Argv != nil,
				Shaped: r.Shaped, Flags: r.Flags, Operands: r.Operands, AnyOperands: r.AnyOperands, Bound: r.Bound})
		}
		return nil
	})
	if err == nil {
		st.sess = sess
	}
	return err
}

func (st *state) recordAlways() error {
	local := st.files.ProjectLocal
	if err := ensureGitignore(filepath.Dir(local)); err != nil {
		return err
	}
	ts := execpolicy.TrustStore{Path: st.files.TrustStore}
	trusted := true
	for _, p := range st.askingParts() {
		_, ok, err := ts.AppendTrustedRule(local, execpolicy.RuleFor(p, st.ws.Cwd()), "approved always "+time.Now().UTC().Format(time.RFC3339)+": "+DisplayArgv(p.Argv))
		if err != nil {
			return err
		}
		trusted = trusted && ok
	}
	if !trusted {
		st.note = local + " holds rules you have not vouched for, so the new rule waits too: review the file, then run vtexec policy trust"
	}
	return nil
}

// ensureGitignore keeps policy.local.toml, lock and temporary files out
// of git (execpolicy.KeepOutOfGit).
func ensureGitignore(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return execpolicy.KeepOutOfGit(dir)
}

// stateError is the bad_state error for a state file vtexec refuses to
// read, or nil if err is not about one.

// warnUnwritable says the session could not be kept, and where.
func (st *state) warnUnwritable(err error) {
	dir, _ := StateDir()
	st.warn(codes.StateUnwritable, fmt.Sprintf("vtexec's state directory %s cannot be written (%v): this command ran without a session, so a cd or a session approval does not carry over; free space there, make it writable, or set XDG_STATE_HOME to another directory", dir, err))
}

func stateError(err error, hint string) *RequestError {
	var fe *fsutil.FileError
	if !errors.As(err, &fe) {
		return nil
	}
	return &RequestError{Code: codes.BadState, Reason: fe.Error(), Hint: hint}
}

func (st *state) saveCwd(cwd string) error {
	if st.sess == nil || cwd == st.sess.Cwd {
		return nil
	}
	sess, err := st.store.Update(st.sess.ID, st.ws.Root(), func(s *cwdtrack.Session) error {
		s.Cwd = cwd
		return nil
	})
	if err == nil {
		st.sess = sess
	}
	return err
}

func (st *state) marker(exit int) string {
	if st.sess == nil {
		return ""
	}
	return cwdtrack.Marker(st.sess.Token, cwdtrack.Mark{Cwd: st.ws.Cwd(), ExitCode: exit})
}

// ownFilesOutside refuses a workspace that holds vtexec's configuration
// or state directory: commands could rewrite the user's policy or read the
// trust store and session secrets, directly or through any recursive tool.
func (st *state) ownFilesOutside() error {
	// The project's policy files are protected by the name .vtexec; a
	// .vtexec that is a link would make them writable under another.
	// A policy from an unchanged watch of the way to the project's files
	// vouches for it (watchPolicyFiles gives none for a link or a file).
	dot := filepath.Dir(st.files.Project)
	if !st.policyWatched {
		if fi, err := os.Lstat(dot); err == nil && !fi.IsDir() {
			return badRequest("make .vtexec a plain directory (a person can replace the link with the directory it points to)",
				"%s is not a plain directory (a symbolic link or a file), so its policy files would be writable under another name", dot)
		}
	}
	for _, d := range []struct{ env, dir string }{
		{"XDG_CONFIG_HOME", filepath.Dir(st.files.User)},
		{"XDG_STATE_HOME", filepath.Dir(st.files.TrustStore)},
	} {
		if st.holds(d.dir) {
			return badRequest("set "+d.env+" to a directory outside the workspace, or use a narrower workspace",
				"vtexec's own directory %s lies inside the workspace, where commands could read or rewrite it", d.dir)
		}
	}
	if a := st.req.AuditLog; a != "" && a != "off" {
		if abs, err := filepath.Abs(a); err == nil && st.holds(abs) {
			return badRequest("pass --audit with a path outside the workspace",
				"the audit log %s lies inside the workspace, where commands could rewrite it", a)
		}
	}
	return nil
}

// extraPath takes the policy's extra PATH directories (the user's
// toolchains) that exist into the request's checker. None may lie where
// commands write (the workspace, a root): what is there would be
// trusted.
func (st *state) extraPath() error {
	st.checker = st.engine.checker
	for _, d := range st.pol.ExtraPaths {
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue // a toolchain removed since: nothing to find there
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			continue
		}
		if st.holds(real) || st.ws.Contains(real) {
			return &RequestError{Code: codes.BadPolicy, Reason: fmt.Sprintf("paths.extra %s lies where commands may write, so what is there could not be trusted", d),
				Hint: "name a directory of installed programs outside the workspace and its roots"}
		}
		st.extra = append(st.extra, real)
	}
	if len(st.extra) > 0 {
		st.checker.TrustedPath = st.engine.checker.Path() + ":" + strings.Join(st.extra, ":")
	}
	return nil
}

// holds reports whether the workspace (or an extra root) holds p.
func (st *state) holds(p string) bool {
	real, ok := st.engine.realPaths.Load(p)
	if !ok {
		r, err := workspace.Real(p)
		if err != nil {
			return false
		}
		real, _ = st.engine.realPaths.LoadOrStore(p, r)
	}
	return st.ws.Holds(real.(string))
}

func (st *state) openAudit() error {
	path := st.req.AuditLog
	if path == "off" {
		return nil
	}
	if path == "" {
		dir, err := StateDir()
		if err != nil {
			return nil // no home and no XDG_STATE_HOME: nowhere to audit
		}
		path = filepath.Join(dir, "audit.jsonl")
	}
	k, err := st.engine.auditLog(path)
	if err != nil {
		return &RequestError{Code: codes.BadState, Reason: "audit log " + path + ": " + err.Error(),
			Hint: "make the audit log a regular file vtexec can append to, pass --audit with another path, or --audit off"}
	}
	st.log = k
	return nil
}

// closeLog lets go of the request's audit log.
func (st *state) closeLog() {
	if st.log != nil {
		st.engine.releaseLog(st.log)
		st.log = nil
	}
}

// keptLog is an audit log an Engine keeps open between requests, and how
// many requests write to it now.
type keptLog struct {
	*audit.Log
	path  string
	users int
}

// auditLog gives a request the audit log at path: the one kept open
// since an earlier request while path still leads to its file (moved
// away, removed or replaced, the log is opened again), else a new one
// kept from then on. Opening it, with its checks, and closing it cost a
// request more than writing its record.
func (e *Engine) auditLog(path string) (*keptLog, error) {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	if k := e.log; k != nil && k.path == path && k.WritesTo(path) {
		k.users++
		return k, nil
	}
	l, err := audit.Open(path)
	if err != nil {
		return nil, err
	}
	if old := e.log; old != nil && old.users == 0 {
		old.Close()
	} // else its last request closes it
	e.log = &keptLog{Log: l, path: path, users: 1}
	return e.log, nil
}

// releaseLog ends a request's use of k, closing it if it is no longer
// the one kept and this was its last request.
func (e *Engine) releaseLog(k *keptLog) {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	if k.users--; k.users == 0 && e.log != k {
		k.Close()
	}
}

// closeKeptLog closes the audit log kept, now or when its last request
// ends.
func (e *Engine) closeKeptLog() {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	if k := e.log; k != nil && k.users == 0 {
		k.Close()
	}
	e.log = nil
}

// audit writes one record with what every record of this request shares.
func (st *state) audit(r audit.Record) {
	if st.log == nil {
		return
	}
	if err := st.log.Write(st.shared(r)); err != nil {
		st.warn(codes.AuditFailed, auditFailed(err))
	}
}

// shared is r with what every record of this request shares.
func (st *state) shared(r audit.Record) audit.Record {
	r.Session, r.Cwd, r.Command = st.req.Session, st.ws.Cwd(), st.src
	if st.decided.Plan != nil {
		for _, c := range st.decided.Plan.Commands() {
			r.Argv = append(r.Argv, c.Argv)
		}
	}
	return r
}

func auditFailed(err error) string { return "the audit line was not written: " + err.Error() }

// heldRecord is a decision's audit record, encoded when it was decided,
// that Engine.WriteAudit writes; it keeps the log it goes to open.
type heldRecord struct {
	log  *keptLog
	line audit.Line
}

// hold encodes r as audit would write it, for WriteAudit.
func (st *state) hold(r audit.Record) *heldRecord {
	if st.log == nil {
		return nil
	}
	line, err := audit.Encode(st.shared(r))
	if err != nil {
		st.warn(codes.AuditFailed, auditFailed(err))
		return nil
	}
	st.engine.logMu.Lock()
	st.log.users++ // until WriteAudit
	st.engine.logMu.Unlock()
	return &heldRecord{log: st.log, line: line}
}

// WriteAudit writes the audit records Check held (Request.HoldAudit)
// for ds, in their order, with one write for the records that go to one
// log; a record that could not be written becomes a warning on its
// decision, as Check reports one it wrote. Each record is written once,
// however many copies of its decision are given.
func (e *Engine) WriteAudit(ds []Decision) {
	type run struct { // held records that go to one log, and whose they are
		log   *keptLog
		lines []audit.Line
		of    []int
	}
	var runs []run
	for i := range ds {
		h := ds[i].held
		ds[i].held = nil
		if !h.pending() {
			continue
		}
		if len(runs) == 0 || runs[len(runs)-1].log != h.log {
			runs = append(runs, run{log: h.log})
		}
		r := &runs[len(runs)-1]
		r.lines, r.of = append(r.lines, h.line), append(r.of, i)
		h.line = nil // written now, whoever holds a copy
	}
	for _, r := range runs {
		err := r.log.WriteLines(r.lines...)
		for _, i := range r.of {
			if err != nil {
				ds[i].Warnings = append(ds[i].Warnings, Warning{Code: codes.AuditFailed, Reason: auditFailed(err)})
			}
			e.releaseLog(r.log)
		}
	}
}

func (h *heldRecord) pending() bool { return h != nil && h.line != nil }

// recheck returns the runner's check before each step: every command of
// the step is checked again against the tree as it is then. The first
// step was checked a moment ago, unless a person was asked in between.
func (st *state) recheck(asked bool) func(int, []plan.Cmd) error {
	c := st.checker
	return func(step int, cmds []plan.Cmd) error {
		if step == 0 && !asked {
			return nil
		}
		st.ws.SetBudget(checkBudget(st.req)) // each step's check has its own
		for _, cmd := range cmds {
			if v := c.Recheck(cmd, st.ws); v != nil {
				return &Stop{Argv: cmd.Argv, Code: v.Code, Reason: v.Reason, Hint: v.Hint}
			}
		}
		return nil
	}
}

// redirectWords renders a command's redirects for a person: "< in.txt",
// "> out.txt", "2>&1", paths relative to the workspace root.
func redirectWords(rs []plan.Redirect, ws *workspace.Workspace) []string {
	var out []string
	for _, r := range rs {
		fd := ""
		if (r.Kind == plan.Read && r.Fd != 0) || (r.Kind != plan.Read && r.Fd != 1) {
			fd = fmt.Sprint(r.Fd)
		}
		path := r.Path
		if ws.Contains(path) {
			path = ws.Rel(path)
		}
		switch r.Kind {
		case plan.Read:
			out = append(out, fd+"< "+path)
		case plan.Write:
			out = append(out, fd+"> "+path)
		case plan.Append:
			out = append(out, fd+">> "+path)
		case plan.Dup:
			out = append(out, fmt.Sprintf("%d>&%d", r.Fd, r.DupFd))
		case plan.Input:
			// The text itself, quoted: a person approves what it feeds,
			// and an approval is bound to it.
			out = append(out, "<<< "+strconv.Quote(r.Data))
		}
	}
	return out
}
