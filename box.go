package vtexec

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/confine"
	"github.com/vtexec/vtexec/internal/fsutil"
	"github.com/vtexec/vtexec/internal/runbox"
	"github.com/vtexec/vtexec/plan"
)

// The codes of a box that cannot be given or of what it saw (see package
// runbox).
const (
	// CodeOutOfMemory warns of a command the kernel killed for exceeding
	// the memory bound.
	CodeOutOfMemory = runbox.CodeOutOfMemory
	// CodeConfinementUnavailable refuses a run whose required
	// confinement cannot be applied here.
	CodeConfinementUnavailable = runbox.CodeConfinementUnavailable
	// CodeNetworkUnavailable refuses a run with a network grant where
	// slirp4netns, which gives it a network namespace of its own, is
	// missing.
	CodeNetworkUnavailable = runbox.CodeNetworkUnavailable
	// CodeDiskFull warns that a file system the command writes was full
	// after it ran.
	CodeDiskFull = runbox.CodeDiskFull
)

// openBox prepares the box the request's programs run in.
func (st *state) openBox(early *runbox.EarlyDirs) (*runbox.Box, error) {
	mode, err := confine.ParseMode(pick(st.req.Confinement, st.pol.Confinement))
	if err != nil {
		return nil, &RequestError{Code: codes.BadRequest, Reason: err.Error(), Hint: "pass --confinement required, best-effort or off"}
	}
	b, err := runbox.Open(runbox.Options{Root: st.ws.Root(), Mode: mode, Policy: st.pol, Plan: st.decided.Plan,
		Network: st.decided.Network, Early: early, Cache: &st.engine.boxes, ExtraPath: st.extra})
	var refused *runbox.Refusal
	if errors.As(err, &refused) {
		return nil, &RequestError{Code: refused.Code, Reason: refused.Reason, Hint: refused.Hint}
	}
	return b, err
}

// openBoxGroup opens the request's box and the process group its run's
// programs share.
func (st *state) openBoxGroup(early *runbox.EarlyDirs) (*runbox.Box, *confine.Group, error) {
	bx, err := st.openBox(early)
	if err != nil {
		return nil, nil, err
	}
	group, err := bx.NewGroup()
	if err != nil {
		bx.Close()
		return nil, nil, &RequestError{Code: CodeConfinementUnavailable, Reason: err.Error(), Hint: "check that vtexec may make cgroups here, or set confinement = \"best-effort\""}
	}
	return bx, group, nil
}

// quarantine is where what a run left under a name that outlives it is
// moved, "" when vtexec has no state directory.
func quarantine() string {
	dir, err := StateDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "disarmed")
}

// watchPlants disarms, while the run goes on, what it makes under a
// missing protected name.
func (st *state) watchPlants(bx *runbox.Box) *confine.PlantWatch {
	q := quarantine()
	if q == "" {
		return nil
	}
	return bx.WatchPlants(st.ws.Root(), q)
}

// disarm moves away what the run left that outlives it (see
// runbox.Box.Disarm) and warns of each.
func (st *state) disarm(bx *runbox.Box, during []confine.Disarmed, absent []string) []confine.Disarmed {
	q := quarantine()
	if q == "" {
		return nil
	}
	out := bx.Disarm(q, during, absent)
	for _, d := range out {
		where := "it could not be moved; remove it before running git"
		if d.MovedTo != "" {
			where = "moved to " + d.MovedTo
		}
		st.warn(codes.Disarmed, fmt.Sprintf("the command made %s: %s; %s", d.Path, d.Why, where))
	}
	return out
}

// explainFailure warns of what the box denied that a failed run's error
// output names (see runbox.Explain); nothing where no box confined it.
func (st *state) explainFailure(bx *runbox.Box, report *confine.Report, stderr string) {
	if report.Filesystem != "confined" {
		return
	}
	f := runbox.Facts{Root: st.ws.Root(), Network: len(report.NetworkGranted) > 0, Protected: runbox.ProtectedNames(st.pol.Protect)}
	for _, w := range bx.Writable(st.ws.Root()) {
		f.Writable = append(f.Writable, w.Path)
	}
	for _, r := range st.pol.Roots {
		if r.Access == "read-write" {
			f.Writable = append(f.Writable, r.Path)
		}
	}
	for _, n := range runbox.Explain(stderr, f) {
		what := n.Op
		if n.Path != "" {
			what += " " + n.Path
		}
		st.warn(runbox.CodeBoxDenied, fmt.Sprintf("the command failed, and its output names what the box denied: %s (%s); %s", what, n.Why, n.Hint))
	}
}

// afterBoxedRun warns of what the box saw a run go through: processes
// the kernel killed for memory, a full disk, a failure the box may
// explain, output lost to a process outside the run.
func (st *state) afterBoxedRun(bx *runbox.Box, report *confine.Report, group *confine.Group, oomBefore, exit int, stderr string, lost int64) {
	if after := group.OOMKills(); oomBefore >= 0 && after > oomBefore {
		limit := ""
		if report.Limits != nil && report.Limits.Memory > 0 {
			limit = fmt.Sprintf(" (%d MiB for the workspace's commands together)", report.Limits.Memory>>20)
		}
		st.warn(CodeOutOfMemory, fmt.Sprintf("the kernel killed %d process(es) of the command for exceeding the memory bound%s; its output and exit code are those of a killed program", after-oomBefore, limit))
	}
	for _, where := range bx.Writable(st.ws.Root()) {
		if fsutil.Full(where.Path) {
			st.warn(CodeDiskFull, fmt.Sprintf("the file system holding %s has no space left: a write of the command may have failed for that, and its output or exit code may say so only in the program's own words", where.What))
			break
		}
	}
	if exit != 0 {
		st.warnWithoutNetwork()
		st.explainFailure(bx, report, stderr)
	}
	if lost > 0 {
		st.warn(codes.OutputIncomplete, fmt.Sprintf("%d bytes of output were still unread when vtexec stopped reading, %s after the command's processes ended, because a process outside them kept writing: the output is incomplete", lost, "5s"))
	}
}

// keepReady, for a long-lived Engine, has the box start the helper its
// next program needs (without root; for git too if this run ran git),
// once this run's programs have ended, so that its start slows none.
func (st *state) keepReady(bx *runbox.Box) {
	if !st.engine.keepReady {
		return
	}
	bx.Box.KeepReady(false)
	if st.decided.Plan.Any(func(c plan.Cmd) bool { return c.Git }) {
		bx.Box.KeepReady(true)
	}
}
