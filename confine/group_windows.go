package confine

import (
	"fmt"
	"os/exec"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Group is the job object of one run: every process the run starts is
// assigned to it, and every process those start is in it too, so closing
// it ends the whole tree — when the run ends, and when vtexec exits, since
// its handle closes then (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE). No process
// may break away from it.
type Group struct {
	mu  sync.Mutex
	job windows.Handle
}

// jobLimits are the limits of a run's job object: its processes die when
// the job's last handle closes, and none may leave it.
const jobLimits = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE

// NewGroup makes the job object of a run.
func (b *Box) NewGroup() (*Group, error) {
	if b.mode == ModeOff {
		return nil, nil
	}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("confine: job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: jobLimits},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("confine: job object limits: %w", err)
	}
	return &Group{job: job}, nil
}

// adopt assigns the started cmd to the run's job object. A process it
// started in the moment before is not in the job; the program itself is,
// with everything it starts from then on.
func (g *Group) adopt(cmd *exec.Cmd) error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job == 0 {
		return fmt.Errorf("confine: the run's job object is closed")
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err != nil {
		return fmt.Errorf("confine: open the process for its job object: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(g.job, h); err != nil {
		return fmt.Errorf("confine: job object: %w", err)
	}
	return nil
}

// Close ends every process left in the run's job object.
func (g *Group) Close() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		windows.CloseHandle(g.job)
		g.job = 0
	}
}

// OOMKills is -1: a job object here bounds no memory.
func (g *Group) OOMKills() int { return -1 }
