package confine

import (
	"fmt"
	"os/exec"
	"sync"
	"syscall"
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

// prepare has cmd start suspended, so that it runs no instruction
// before adopt has put it in the job: whatever it starts is in the job
// too.
func (g *Group) prepare(cmd *exec.Cmd) {
	if g == nil {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
}

// adopt assigns the started, suspended cmd to the run's job object, then
// lets it run. On an error the process has not run; the caller kills it.
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
	return resumeThreads(uint32(cmd.Process.Pid))
}

// resumeThreads resumes the threads of the process pid, started
// suspended (its main thread: os/exec keeps no handle of it).
func resumeThreads(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("confine: list the threads to resume: %w", err)
	}
	defer windows.CloseHandle(snap)
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != pid {
			continue
		}
		t, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return fmt.Errorf("confine: open the thread to resume: %w", err)
		}
		_, err = windows.ResumeThread(t)
		windows.CloseHandle(t)
		if err != nil {
			return fmt.Errorf("confine: resume the thread: %w", err)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("confine: no thread of process %d to resume", pid)
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
