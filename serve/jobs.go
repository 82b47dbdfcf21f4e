package serve

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/internal/serveopts"
	"github.com/vtexec/vtexec/validators"
)

// Background job tools.
const (
	ToolRead  = "shell_read"
	ToolWrite = "shell_write"
	ToolKill  = "shell_kill"
	ToolList  = "shell_list"
)

// Limits of background jobs.
const (
	// DefaultMaxJobs is how many background commands may run at once.
	DefaultMaxJobs = serveopts.DefaultMaxJobs
	// DefaultJobTimeout ends a background command that was given no
	// timeout_ms.
	DefaultJobTimeout = 8 * time.Hour
	// jobBuffer is how much unread output a job keeps.
	jobBuffer = 1 << 20
	// maxInput bounds one shell_write.
	maxInput = 64 << 10
	// maxWait bounds shell_read's wait_ms.
	maxWait = 30 * time.Second
	// writeTimeout is how long shell_write waits for the program to take
	// its input.
	writeTimeout = 5 * time.Second
	// keepEnded is how many ended jobs stay readable per connection.
	keepEnded = 16
	// drainTimeout bounds reading what is left on the terminal once a
	// job's processes are gone.
	drainTimeout = time.Second
)

// terminalSize is the size of a background command's terminal.
var terminalSize = pty.Winsize{Rows: 40, Cols: 160}

// ReadInput is shell_read's input.
type ReadInput struct {
	ID     string `json:"id" jsonschema:"the job id shell returned"`
	WaitMs int64  `json:"wait_ms,omitempty" jsonschema:"when there is no new output yet, wait up to this many milliseconds for some (at most 30000); default: answer at once"`
}

// WriteInput is shell_write's input.
type WriteInput struct {
	ID    string `json:"id" jsonschema:"the job id shell returned"`
	Input string `json:"input" jsonschema:"the text to type, exactly; end a line with \\n"`
}

// KillInput is shell_kill's input.
type KillInput struct {
	ID string `json:"id" jsonschema:"the job id shell returned"`
}

// ListInput is shell_list's input: nothing.
type ListInput struct{}

// JobOutput is what shell_read and shell_kill answer.
type JobOutput struct {
	ID      string `json:"id"`
	Command string `json:"command"`
	Running bool   `json:"running"`
	// Output is what the command wrote to its terminal since the last
	// read; OutputBase64 has its exact bytes when they are not UTF-8.
	Output       string `json:"output"`
	OutputBase64 string `json:"output_base64,omitempty"`
	// DroppedBytes were written since the last read but not kept.
	DroppedBytes int64 `json:"dropped_bytes"`
	// ExitCode is set once the command ended.
	ExitCode *int `json:"exit_code,omitempty"`
	// Killed is set when shell_kill or the connection's end stopped it.
	Killed bool `json:"killed,omitempty"`
	// Result is the command's vtexec result once it ended.
	Result *vtexec.Result `json:"result,omitempty"`
	// Error is set when vtexec failed to run the command after it was
	// allowed (a box it could not make); then there is no Result.
	Error string `json:"error,omitempty"`
}

// WriteOutput is what shell_write answers.
type WriteOutput struct {
	ID      string `json:"id"`
	Written int    `json:"written"`
}

// JobInfo is one job in shell_list's answer.
type JobInfo struct {
	ID        string `json:"id"`
	Command   string `json:"command"`
	Cwd       string `json:"cwd"`
	Running   bool   `json:"running"`
	ExitCode  *int   `json:"exit_code,omitempty"`
	StartedAt string `json:"started_at"`
	// UnreadBytes is how much output waits for shell_read.
	UnreadBytes int `json:"unread_bytes"`
}

// ListOutput is shell_list's answer.
type ListOutput struct {
	Jobs []JobInfo `json:"jobs"`
}

// job is one command started in the background on a pseudo-terminal.
type job struct {
	id, command, cwd string
	started          time.Time
	dataInput        bool // the agent may type into it without approval
	master           *os.File
	out              *outBuffer
	cancel           context.CancelFunc

	done   chan struct{} // closed once it ended and its output was read
	res    vtexec.Result // set before done is closed
	err    error
	killed bool // guarded by the connection's jobs lock
}

func (j *job) ended() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// jobTable is one connection's background jobs.
type jobTable struct {
	mu   sync.Mutex
	next int
	jobs []*job // in start order
}

func (t *jobTable) get(id string) (*job, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, j := range t.jobs {
		if j.id == id {
			return j, nil
		}
	}
	return nil, &Error{Code: codes.NoSuchJob, Reason: fmt.Sprintf("there is no job %q on this connection", id),
		Hint: "use an id that shell (with background: true) returned; shell_list lists them"}
}

// addJobTools registers the background job tools.
func (s *Server) addJobTools() error {
	jobOut, err := jsonschema.For[JobOutput](nil)
	if err != nil {
		return err
	}
	if r := jobOut.Properties["result"]; r != nil {
		addBase64(r)
	}
	for _, err := range []error{
		addTool(s.mcp, &mcp.Tool{Name: ToolRead, Title: "Read a background command's output", Description: readDescription,
			OutputSchema: jobOut, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}}, s.read),
		addTool(s.mcp, &mcp.Tool{Name: ToolWrite, Title: "Type into a background command", Description: writeDescription,
			Annotations: &mcp.ToolAnnotations{OpenWorldHint: new(false)}}, s.write),
		addTool(s.mcp, &mcp.Tool{Name: ToolKill, Title: "Stop a background command", Description: killDescription,
			OutputSchema: jobOut, Annotations: &mcp.ToolAnnotations{OpenWorldHint: new(false)}}, s.kill),
		addTool(s.mcp, &mcp.Tool{Name: ToolList, Title: "List background commands", Description: listDescription,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}}, s.list),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// startJob runs r in the background on a new terminal: it returns once
// the command was decided, with the job's id if it runs, or with the
// refusal.
func (s *Server) startJob(callCtx context.Context, c *conn, r vtexec.Request, timeoutMs int64) (*mcp.CallToolResult, vtexec.Result, error) {
	if err := s.reserveJob(); err != nil {
		return nil, vtexec.Result{}, err
	}
	master, tty, err := openTerminal()
	if err != nil {
		s.releaseJob()
		return nil, vtexec.Result{}, &Error{Code: codes.TerminalUnavailable, Reason: "no pseudo-terminal could be opened: " + err.Error(),
			Hint: "run the command without background: true"}
	}
	c.jobs.mu.Lock()
	c.jobs.next++
	j := &job{id: "j" + strconv.Itoa(c.jobs.next), command: r.Command, started: time.Now(), master: master,
		out: newOutBuffer(jobBuffer), done: make(chan struct{})}
	c.jobs.mu.Unlock()

	s.mu.Lock()
	cctx := c.ctx
	s.mu.Unlock()
	jctx, cancel := context.WithCancel(cctx)
	j.cancel = cancel
	// Until the command is decided, it is the call's: a client that
	// cancels the call while a person is asked cancels the command.
	stopEarly := context.AfterFunc(callCtx, cancel)

	type decision struct {
		d   vtexec.Decision
		cwd string
	}
	decided := make(chan decision, 1)
	r.Terminal, r.KeepCwd = tty, true
	r.Decided = func(d vtexec.Decision, cwd string) { decided <- decision{d, cwd} }
	r.Timeout = DefaultJobTimeout
	if timeoutMs > 0 {
		r.Timeout = time.Duration(timeoutMs) * time.Millisecond
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := master.Read(buf)
			j.out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	c.calls.Add(1)
	go func() {
		defer c.calls.Done()
		res, err := s.engine.Run(jctx, r)
		tty.Close() // with the commands gone, the terminal reads to its end
		select {
		case <-readDone:
		case <-time.After(drainTimeout):
		}
		master.Close()
		<-readDone
		cancel()
		res.Job = j.id
		j.res, j.err = res, err
		// The slot is free before anyone waiting on done is told.
		s.releaseJob()
		close(j.done)
	}()

	select {
	case dc := <-decided:
		stopEarly()
		d := dc.d
		if !d.Allowed() {
			<-j.done
			return s.finishRefusedJob(j)
		}
		j.cwd = dc.cwd
		j.dataInput = readsDataOnly(d)
		c.jobs.add(j)
		res := vtexec.Result{Decision: d, Job: j.id, Cwd: dc.cwd}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: renderStarted(j, d)}}}, res, nil
	case <-j.done:
		stopEarly()
		return s.finishRefusedJob(j)
	}
}

// finishRefusedJob answers for a job that never started.
func (s *Server) finishRefusedJob(j *job) (*mcp.CallToolResult, vtexec.Result, error) {
	if j.err != nil {
		return nil, vtexec.Result{}, toError(j.err)
	}
	res := j.res
	res.Job = ""
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: renderResult(res)}},
		IsError: !res.Decision.Allowed(),
	}, res, nil
}

// add records a started job, forgetting the oldest ended ones beyond
// keepEnded.
func (t *jobTable) add(j *job) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.jobs = append(t.jobs, j)
	ended := 0
	for _, o := range t.jobs {
		if o.ended() {
			ended++
		}
	}
	t.jobs = slices.DeleteFunc(t.jobs, func(o *job) bool {
		if ended > keepEnded && o.ended() {
			ended--
			return true
		}
		return false
	})
}

func (s *Server) reserveJob() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.liveJobs >= s.opts.MaxJobs {
		return &Error{Code: codes.TooManyJobs, Reason: fmt.Sprintf("%d background commands are running, the most vtexec serve allows", s.liveJobs),
			Hint: "stop one with shell_kill (shell_list lists them), or run this one without background: true"}
	}
	s.liveJobs++
	return nil
}

func (s *Server) releaseJob() {
	s.mu.Lock()
	s.liveJobs--
	s.mu.Unlock()
}

// readsDataOnly reports whether every program of d reads its input as
// data only (its profile says so): what the agent types into them needs
// no approval. Typing into anything else (an interpreter, a shell, git
// apply, a program vtexec does not know) needs a person's approval of
// exactly that input.
func readsDataOnly(d vtexec.Decision) bool {
	for _, c := range d.Commands {
		if c.Builtin != "" {
			continue
		}
		if !validators.ProfileOf(filepath.Base(c.Program)).ReadsInputAsData {
			return false
		}
	}
	return true
}

func (s *Server) jobOf(req *mcp.CallToolRequest, id string) (*conn, *job, error) {
	c := s.conn(req.Session)
	j, err := c.jobs.get(id)
	return c, j, err
}

func (s *Server) read(ctx context.Context, req *mcp.CallToolRequest, in ReadInput) (*mcp.CallToolResult, JobOutput, error) {
	c, j, err := s.jobOf(req, in.ID)
	if err != nil {
		return nil, JobOutput{}, err
	}
	if in.WaitMs < 0 {
		return nil, JobOutput{}, &Error{Code: codes.BadRequest, Reason: "wait_ms is negative", Hint: "leave wait_ms out, or give a positive number of milliseconds"}
	}
	wait := min(time.Duration(in.WaitMs)*time.Millisecond, maxWait)
	if n, changed := j.out.pending(); n == 0 && wait > 0 && !j.ended() {
		t := time.NewTimer(wait)
		select {
		case <-changed:
		case <-j.done:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	out := c.snapshot(j)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: renderJob(out)}}}, out, nil
}

// snapshot takes a job's unread output and, once it ended, its result.
func (c *conn) snapshot(j *job) JobOutput {
	ended := j.ended() // before the take: the output is complete if it had ended
	data, dropped := j.out.take(ended)
	c.jobs.mu.Lock()
	out := JobOutput{ID: j.id, Command: j.command, Running: !ended, DroppedBytes: dropped, Killed: j.killed}
	c.jobs.mu.Unlock()
	out.Output = string(data)
	if !utf8.Valid(data) {
		out.OutputBase64 = base64.StdEncoding.EncodeToString(data)
		out.Output = string([]rune(string(data))) // U+FFFD for each byte that is not UTF-8
	}
	switch {
	case ended && j.err != nil:
		out.Error = toError(j.err).Error()
	case ended:
		res := j.res
		out.ExitCode = &res.ExitCode
		out.Result = &res
	}
	return out
}

func (s *Server) kill(ctx context.Context, req *mcp.CallToolRequest, in KillInput) (*mcp.CallToolResult, JobOutput, error) {
	c, j, err := s.jobOf(req, in.ID)
	if err != nil {
		return nil, JobOutput{}, err
	}
	if !j.ended() {
		c.jobs.mu.Lock()
		j.killed = true
		c.jobs.mu.Unlock()
		j.cancel()
		select {
		case <-j.done:
		case <-ctx.Done():
			return nil, JobOutput{}, &Error{Code: codes.Cancelled, Reason: "the call was cancelled before the job ended", Hint: "the job is being stopped; shell_read tells when it ended"}
		}
	}
	out := c.snapshot(j)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: renderJob(out)}}}, out, nil
}

func (s *Server) list(_ context.Context, req *mcp.CallToolRequest, _ ListInput) (*mcp.CallToolResult, ListOutput, error) {
	c := s.conn(req.Session)
	c.jobs.mu.Lock()
	jobs := slices.Clone(c.jobs.jobs)
	c.jobs.mu.Unlock()
	out := ListOutput{Jobs: []JobInfo{}}
	for _, j := range jobs {
		info := JobInfo{ID: j.id, Command: j.command, Cwd: j.cwd, Running: !j.ended(), StartedAt: j.started.UTC().Format(time.RFC3339)}
		info.UnreadBytes, _ = j.out.pending()
		if !info.Running && j.err == nil {
			code := j.res.ExitCode
			info.ExitCode = &code
		}
		out.Jobs = append(out.Jobs, info)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: renderList(out)}}}, out, nil
}

func (s *Server) write(ctx context.Context, req *mcp.CallToolRequest, in WriteInput) (*mcp.CallToolResult, WriteOutput, error) {
	_, j, err := s.jobOf(req, in.ID)
	if err != nil {
		return nil, WriteOutput{}, err
	}
	switch {
	case in.Input == "":
		return nil, WriteOutput{}, &Error{Code: codes.BadRequest, Reason: "input is empty", Hint: "give the text to type; end a line with \\n"}
	case len(in.Input) > maxInput:
		return nil, WriteOutput{}, &Error{Code: codes.TooLong, Reason: fmt.Sprintf("input is %d bytes, more than %d", len(in.Input), maxInput),
			Hint: "write the text to a file with a redirect and have the command read the file"}
	case j.ended():
		return nil, WriteOutput{}, &Error{Code: codes.JobEnded, Reason: "job " + j.id + " has ended", Hint: "shell_read it for its output and exit code"}
	}
	if !j.dataInput {
		ask, err := s.approveInput(ctx, req, j, in.Input)
		if err != nil || ask != nil {
			return ask, WriteOutput{}, err
		}
	}
	j.master.SetWriteDeadline(time.Now().Add(writeTimeout))
	n, err := j.master.Write([]byte(in.Input))
	if err != nil {
		reason := "the input could not be written: " + err.Error()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			reason = fmt.Sprintf("the command took only %d of %d bytes within %s: it is not reading its input", n, len(in.Input), writeTimeout)
		}
		return nil, WriteOutput{}, &Error{Code: codes.WriteFailed, Reason: reason, Hint: "shell_read the job to see what it is doing"}
	}
	out := WriteOutput{ID: j.id, Written: n}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("typed %d bytes into job %s; shell_read it for the answer", n, j.id)}}}, out, nil
}

// inputQuestion is what a person is asked before the agent types into a
// job that may read its input as code.
func inputQuestion(j *job, input string) string {
	return fmt.Sprintf("vtexec: the agent asks to type into background job %s\n  command: %s\n  started in: %s\n  input: %s\n"+
		"The command may read its input as code or act on it.\n",
		j.id, vtexec.DisplayText(j.command), vtexec.DisplayText(j.cwd), vtexec.DisplayText(input))
}

// approveInput asks a person whether the agent may type input into j.
// It returns nil, nil when they said once; for a client asked in rounds,
// the question to send first.
func (s *Server) approveInput(ctx context.Context, req *mcp.CallToolRequest, j *job, input string) (*mcp.CallToolResult, error) {
	q := inputQuestion(j, input)
	conn := s.conn(req.Session).session
	params := &mcp.ElicitParams{Mode: "form", Message: q + "Answer once (type it) or deny.", RequestedSchema: &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{"answer": {Type: "string", Title: "Type this input?", Enum: []any{string(vtexec.AnswerOnce), string(vtexec.AnswerDeny)}}},
		Required:   []string{"answer"},
	}}
	var res *mcp.ElicitResult
	switch askModeOf(req.Session) {
	case askInline:
		ctx, cancel := context.WithTimeout(ctx, s.opts.AskTimeout)
		defer cancel()
		r, err := req.Session.Elicit(ctx, params)
		if err != nil {
			return nil, inputDenied(j, "no answer: "+err.Error())
		}
		res = r
	case askRoundTrip:
		resp, ok := req.Params.InputResponses[approvalKey]
		if !ok {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{approvalKey: params}, RequestState: s.tickets.issue(conn, textDigest(q))}, nil
		}
		if err := s.tickets.redeem(conn, textDigest(q), req.Params.RequestState); err != nil {
			return nil, inputDenied(j, err.Error())
		}
		r, ok := resp.(*mcp.ElicitResult)
		if !ok {
			return nil, inputDenied(j, fmt.Sprintf("the answer is a %T, not an elicitation result", resp))
		}
		res = r
	default:
		return nil, &Error{Code: codes.NeedsApproval, Reason: fmt.Sprintf("job %s runs %s, which may read its input as code; typing into it needs a person's approval, and this client cannot ask one", j.id, vtexec.DisplayText(j.command)),
			Hint: "write the input to a file with a redirect and run the command with < file instead"}
	}
	if res == nil || res.Action != "accept" || res.Content["answer"] != string(vtexec.AnswerOnce) {
		return nil, inputDenied(j, "the person did not approve it")
	}
	return nil, nil
}

func inputDenied(j *job, why string) error {
	return &Error{Code: codes.Denied, Reason: "the input was not typed into job " + j.id + ": " + why,
		Hint: "write the input to a file with a redirect and run the command with < file instead"}
}
