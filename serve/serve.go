package serve

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/codes"
)

// Tool names.
const (
	ToolShell = "shell"
	ToolCheck = "shell_check"
)

// Options configure a Server. The zero value serves the current directory.
type Options struct {
	// Workspace is the root every command is confined to; "" means ".".
	Workspace string
	// Engine decides and runs; nil means a new vtexec.NewEngine(Config{}).
	Engine *vtexec.Engine
	// AuditLog is passed to every request ("" is the default file, "off"
	// disables auditing).
	AuditLog string
	// Version is reported to clients.
	Version string
	// AskTimeout is how long a person has to answer an approval asked by
	// elicitation; 0 means DefaultAskTimeout.
	AskTimeout time.Duration
	// MaxJobs is how many background commands may run at once; 0 means
	// DefaultMaxJobs.
	MaxJobs int
	// JSONLAsks makes ServeJSONL ask the harness about commands that need
	// a person, with lines of its own (see JSONLAsk).
	JSONLAsks bool
}

// ShellInput is the shell tool's input.
type ShellInput struct {
	Command     string `json:"command" jsonschema:"the command line, in bash syntax (see the rules in the tool description)"`
	Cwd         string `json:"cwd,omitempty" jsonschema:"directory to start in, relative to the workspace root or absolute inside it; later calls continue from where this one ends; default: this connection's current directory"`
	TimeoutMs   int64  `json:"timeout_ms,omitempty" jsonschema:"kill the command after this many milliseconds; default: the policy's limit, else 30000"`
	Description string `json:"description,omitempty" jsonschema:"a few words on what the command is for, shown to the person asked to approve it"`
	Background  bool   `json:"background,omitempty" jsonschema:"start the command on a terminal and answer at once with its job id, for servers, watchers and tail -f; read its output with shell_read, type into it with shell_write, stop it with shell_kill; it does not change the cwd"`
}

// CheckInput is the shell_check tool's input.
type CheckInput struct {
	Command string `json:"command" jsonschema:"the command line, in bash syntax"`
	Cwd     string `json:"cwd,omitempty" jsonschema:"directory it would start in, relative to the workspace root or absolute inside it; default: this connection's current directory"`
}

// Server is vtexec's MCP server: the tools shell and shell_check over one
// long-lived Engine. Each connection is one vtexec session, so a cd and
// the approvals a person gives "for this session" hold for that
// connection only. A Server is safe for concurrent use, and so are its
// connections' calls.
type Server struct {
	opts      Options
	engine    *vtexec.Engine
	ownEngine bool // made by New, closed by Close
	mcp       *mcp.Server

	tickets *tickets // questions asked in rounds, waiting for their answer

	mu       sync.Mutex
	conns    map[*mcp.ServerSession]*conn
	liveJobs int // background commands running
}

// New returns a Server for opts.
func New(opts Options) (*Server, error) {
	if opts.Workspace == "" {
		opts.Workspace = "."
	}
	abs, err := filepath.Abs(opts.Workspace)
	if err != nil {
		return nil, err
	}
	opts.Workspace = abs
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.AskTimeout <= 0 {
		opts.AskTimeout = DefaultAskTimeout
	}
	if opts.MaxJobs <= 0 {
		opts.MaxJobs = DefaultMaxJobs
	}
	s := &Server{opts: opts, engine: opts.Engine, tickets: newTickets(opts.AskTimeout), conns: map[*mcp.ServerSession]*conn{}}
	if s.engine == nil {
		s.engine = vtexec.NewEngine(vtexec.Config{KeepReady: true})
		s.ownEngine = true
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "vtexec", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: "vtexec runs shell commands in the workspace " + abs + ".\n\n" + Rules,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	out, err := resultSchema()
	if err != nil {
		return nil, err
	}
	if err := addTool(s.mcp, &mcp.Tool{
		Name:         ToolShell,
		Title:        "Run a shell command",
		Description:  shellDescription,
		OutputSchema: out,
		Annotations:  &mcp.ToolAnnotations{OpenWorldHint: new(false)},
	}, s.shell); err != nil {
		return nil, err
	}
	if err := addTool(s.mcp, &mcp.Tool{
		Name:        ToolCheck,
		Title:       "Check a shell command without running it",
		Description: checkDescription,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, s.check); err != nil {
		return nil, err
	}
	if err := s.addJobTools(); err != nil {
		return nil, err
	}
	return s, nil
}

// Close releases the engine the server made (not one given in Options),
// with its boxes' cgroups and namespaces. Serve nothing after it.
func (s *Server) Close() error {
	if s.ownEngine {
		return s.engine.Close()
	}
	return nil
}

// MCP returns the underlying SDK server, for transports Run does not
// cover; connections made on it directly keep their commands running
// until each call ends.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one connection on t until the client hangs up or ctx ends;
// then it kills the commands still running and returns once they are
// gone. A client that hangs up is not an error.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	ss, err := s.Connect(ctx, t)
	if err != nil {
		return err
	}
	c := s.conn(ss)
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case <-ctx.Done():
		c.calls.Wait() // ctx was theirs too: their commands are being killed
		ss.Close()
		<-done
		<-c.gone
		return nil
	case err := <-done:
		<-c.gone
		if errors.Is(err, mcp.ErrConnectionClosed) {
			return nil
		}
		return err
	}
}

// Connect serves one connection on t and returns at once. The commands
// its calls run are killed when ctx ends or the connection does.
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	ss, err := s.mcp.Connect(ctx, t, nil)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithCancel(ctx)
	c := s.conn(ss)
	s.mu.Lock()
	c.ctx = cctx
	s.mu.Unlock()
	go func() {
		ss.Wait()
		cancel()
		c.calls.Wait()
		// The session's cwd and approvals were this connection's.
		vtexec.EndSession(c.session)
		s.mu.Lock()
		delete(s.conns, ss)
		s.mu.Unlock()
		close(c.gone)
	}()
	return ss, nil
}

// conn is what a Server keeps of one connection.
type conn struct {
	session string          // vtexec session id: "mcp-" and 26 random characters
	ctx     context.Context // ends with the connection
	calls   sync.WaitGroup  // shell calls and background jobs under way
	jobs    jobTable
	gone    chan struct{} // closed once it ended and was cleaned up
}

// conn returns a connection's state, made on first use.
func (s *Server) conn(ss *mcp.ServerSession) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.conns[ss]
	if !ok {
		c = &conn{session: "mcp-" + rand.Text(), ctx: context.Background(), gone: make(chan struct{})}
		s.conns[ss] = c
	}
	return c
}

func (s *Server) request(req *mcp.CallToolRequest, command, cwd string) vtexec.Request {
	return vtexec.Request{
		Command:   command,
		Workspace: s.opts.Workspace,
		Cwd:       cwd,
		Session:   s.conn(req.Session).session,
		AuditLog:  s.opts.AuditLog,
	}
}

func (s *Server) shell(ctx context.Context, req *mcp.CallToolRequest, in ShellInput) (*mcp.CallToolResult, vtexec.Result, error) {
	c := s.conn(req.Session)
	c.calls.Add(1)
	defer c.calls.Done()
	// The command dies with the call (a client's cancellation) and with
	// the connection.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	cctx := c.ctx
	s.mu.Unlock()
	defer context.AfterFunc(cctx, cancel)()
	if in.TimeoutMs < 0 {
		return nil, vtexec.Result{}, &Error{Code: codes.BadRequest, Reason: "timeout_ms is negative", Hint: "leave timeout_ms out, or give a positive number of milliseconds"}
	}
	r := s.request(req, in.Command, in.Cwd)
	r.Timeout = time.Duration(in.TimeoutMs) * time.Millisecond
	ask, err := s.arrangeApproval(ctx, req, &r, in.Description)
	if err != nil {
		return nil, vtexec.Result{}, toError(err)
	}
	if ask != nil {
		return ask, vtexec.Result{}, nil
	}
	if in.Background {
		return s.startJob(ctx, c, r, in.TimeoutMs)
	}
	stop := reportProgress(ctx, req, &r)
	// ctx ends when the client cancels the call: the command is killed.
	res, err := s.engine.Run(ctx, r)
	stop()
	if err != nil {
		return nil, vtexec.Result{}, toError(err)
	}
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: renderResult(res)}},
		IsError: !res.Decision.Allowed(),
	}, res, nil
}

// arrangeApproval sets r.Approver for the way the client can be asked.
// For a client asked in rounds, when the command asks, it returns the
// question to send first instead: the client calls again with the
// answer.
func (s *Server) arrangeApproval(ctx context.Context, req *mcp.CallToolRequest, r *vtexec.Request, purpose string) (*mcp.CallToolResult, error) {
	switch askModeOf(req.Session) {
	case askInline:
		r.Approver = &elicitApprover{ss: req.Session, timeout: s.opts.AskTimeout, purpose: purpose}
	case askRoundTrip:
		if resp, ok := req.Params.InputResponses[approvalKey]; ok {
			r.Approver = &answeredApprover{response: resp, state: req.Params.RequestState, conn: r.Session, tickets: s.tickets}
			return nil, nil
		}
		_, q, err := s.engine.Question(ctx, *r)
		if err != nil || q == nil {
			return nil, err
		}
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{approvalKey: elicitParams(*q, 0, purpose)},
			RequestState:  s.tickets.issue(r.Session, q.Digest()),
		}, nil
	}
	return nil, nil
}

func (s *Server) check(ctx context.Context, req *mcp.CallToolRequest, in CheckInput) (*mcp.CallToolResult, vtexec.Decision, error) {
	d, err := s.engine.Check(ctx, s.request(req, in.Command, in.Cwd))
	if err != nil {
		return nil, vtexec.Decision{}, toError(err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: renderDecision(d)}}}, d, nil
}

// Error is a request vtexec could not act on (a missing workspace, a cwd
// outside it, a policy file that does not load). The tool call fails
// with its text; nothing ran.
type Error struct {
	Code   string
	Reason string
	Hint   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("error %s: %s\nhint: %s", e.Code, e.Reason, e.Hint)
}

func toError(err error) *Error {
	var re *vtexec.RequestError
	if errors.As(err, &re) {
		return &Error{Code: re.Code, Reason: re.Reason, Hint: re.Hint}
	}
	return &Error{Code: codes.InternalError, Reason: err.Error(),
		Hint: "vtexec itself failed; the command did not run or its result is unknown: report it"}
}

// resultSchema is the schema of vtexec.Result as it marshals: the
// struct's fields, and stdout_base64 and stderr_base64 for output that
// is not UTF-8.
func resultSchema() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[vtexec.Result](nil)
	if err != nil {
		return nil, err
	}
	addBase64(s)
	return s, nil
}

// addBase64 adds to the schema of a vtexec.Result the fields its
// MarshalJSON adds for output that is not UTF-8.
func addBase64(s *jsonschema.Schema) {
	for _, name := range []string{"stdout", "stderr"} {
		s.Properties[name+"_base64"] = &jsonschema.Schema{Type: "string",
			Description: "the exact bytes of " + name + ", set only when they are not valid UTF-8 (" + name + " then has U+FFFD in their place)"}
	}
}
