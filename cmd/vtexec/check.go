package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/vtexec/vtexec/codes"
	"github.com/vtexec/vtexec/internal/dirwatch"
	"github.com/vtexec/vtexec/internal/gcpace"
	"github.com/vtexec/vtexec/internal/jsonline"

	"github.com/vtexec/vtexec"
	"github.com/vtexec/vtexec/internal/display"
)

func cmdCheck(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("check")
	wsDir := fs.String("workspace", ".", "workspace root")
	cwd := fs.String("cwd", "", "directory the command starts in")
	asJSON := fs.Bool("json", false, "print the verdict as JSON")
	jsonl := fs.Bool("jsonl", false, "read JSON requests from stdin, one a line")
	session := fs.String("session", "", "use this session's cwd and approvals")
	auditLog := fs.String("audit", "", `audit log file ("off" to disable; --jsonl audits only when given)`)
	if err := parseFlags(fs, args); err != nil {
		return 0, err
	}
	if *jsonl {
		if fs.NArg() > 0 {
			return 0, &usageError{"check --jsonl reads commands from stdin, not arguments"}
		}
		if *auditLog == "" {
			*auditLog = "off"
		}
		ctx, stop := onSignals(ctx)
		defer stop()
		return 0, checkStream(ctx, streamConfig{wsDir: *wsDir, auditLog: *auditLog, session: *session}, stdin, stdout)
	}
	req, err := commandRequest(fs.Args())
	if err != nil {
		return 0, err
	}
	req.Workspace, req.Cwd, req.Session, req.AuditLog = *wsDir, *cwd, *session, *auditLog
	req.WantApprovalID = *asJSON
	d, err := engine().Check(ctx, req)
	if err != nil {
		return 0, err
	}
	if *asJSON {
		if err := encodeJSON(stdout, d); err != nil {
			return 0, err
		}
	} else {
		printDecision(stdout, d)
		printWarnings(stderr, d.Warnings)
	}
	return exitFor(d), nil
}

func exitFor(d vtexec.Decision) int {
	switch d.Decision {
	case vtexec.VerdictAllow:
		return exitAllow
	case vtexec.VerdictAsk:
		return exitAsk
	}
	return exitDeny
}

func printDecision(w io.Writer, d vtexec.Decision) {
	if d.Allowed() {
		fmt.Fprintln(w, "allow")
		return
	}
	fmt.Fprintf(w, "%s %s: %s\nhint: %s\n", d.Decision, d.Code, display.Text(d.Reason), display.Text(d.Hint))
}

// commandRequest reads the words after "--": one is a command string,
// several are an argv.
func commandRequest(words []string) (vtexec.Request, error) {
	switch len(words) {
	case 0:
		return vtexec.Request{}, &usageError{"no command: put it after --"}
	case 1:
		return vtexec.Request{Command: words[0]}, nil
	}
	return vtexec.Request{Argv: words}, nil
}

// streamRequest is one line of check --jsonl. "cmd" is a string or an
// array of strings; other fields are ignored.
type streamRequest struct {
	Cmd json.RawMessage `json:"cmd"`
	Cwd string          `json:"cwd"`
}

const maxLine = 1 << 20

// decodeStreamRequest decodes a line as json.Unmarshal into a
// streamRequest does. A corpus line carries many fields beside the two
// read here: taking those two out of the validated bytes skips the
// decoder's reflection over the rest.
func decodeStreamRequest(line []byte) (streamRequest, error) {
	var sr streamRequest
	vals, ok := jsonline.Fields(line, "cmd", "cwd")
	if ok {
		if vals[0] != nil {
			sr.Cmd = bytes.Clone(vals[0])
		}
		if vals[1] == nil {
			return sr, nil
		}
		if cwd, exact := jsonline.String(vals[1]); exact {
			sr.Cwd = cwd
			return sr, nil
		}
		if json.Unmarshal(vals[1], &sr.Cwd) == nil {
			return sr, nil
		}
	}
	sr = streamRequest{}
	err := json.Unmarshal(line, &sr)
	return sr, err
}

// checkStream answers one verdict line per request line, in order. A bad
// line (blank lines included) gets a deny with code bad_request and the
// stream goes on.
type streamConfig struct {
	wsDir, auditLog, session string
	engine                   *vtexec.Engine
}

func checkStream(ctx context.Context, cfg streamConfig, stdin io.Reader, stdout io.Writer) error {
	// One Engine for the stream: it keeps the loaded policy and reloads
	// it only when a policy file or the trust store changes.
	cfg.engine = vtexec.NewEngine(vtexec.Config{})
	defer cfg.engine.Close() // the audit log it keeps open
	// It only checks: what the caches watch is read once per line.
	dirwatch.ReadPerRequest(true)
	defer dirwatch.ReadPerRequest(false)
	if abs, err := filepath.Abs(cfg.wsDir); err == nil {
		// Once, not per line: a relative root costs a getcwd each time.
		cfg.wsDir = abs
	}
	gcpace.LessOften()
	// Lines of one session are checked one after another (a refusal
	// counts against the session before the next line is decided);
	// without one, lines are independent and are checked on every CPU,
	// answered in order.
	workers := 1
	if cfg.session == "" {
		// Twice the CPUs: a line that waits (git inspecting the
		// repository, a directory being listed) leaves its CPU to
		// another line instead of idle.
		workers = 2 * runtime.GOMAXPROCS(0)
	}
	// The read blocks, so it has a goroutine of its own: the stream ends
	// when ctx is done (SIGTERM, SIGINT) even while it waits for a line.
	// That goroutine ends at the next line or at EOF.
	order := make(chan *streamLine, readAhead)
	work := make(chan *streamLine, 64)
	go func() {
		defer close(work)
		in := bufio.NewReaderSize(stdin, 64<<10)
		for n := 0; ; n++ {
			line, err := readLine(in)
			l := &streamLine{n: n, line: line, err: err, done: make(chan struct{})}
			if err == nil {
				select {
				case work <- l:
				case <-ctx.Done():
					return
				}
			} else {
				close(l.done)
			}
			select {
			case order <- l:
			case <-ctx.Done():
				return
			}
			if err != nil && !errors.Is(err, errLineTooLong) {
				return
			}
		}
	}()
	// Each line's audit record is held until its answer is written: the
	// records of the lines answered together are written with one write,
	// before their answers.
	var held heldLines
	defer held.stop(cfg.engine)
	for range workers {
		go func() {
			for l := range work {
				d := checkLine(ctx, cfg, l.line)
				held.add(cfg.engine, l, d)
				close(l.done)
			}
		}()
	}
	out := bufio.NewWriterSize(stdout, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	var batch []*streamLine
	answer := func() error {
		ds := held.take(batch)
		cfg.engine.WriteAudit(ds)
		batch = batch[:0]
		for _, d := range ds {
			if err := enc.Encode(d); err != nil {
				return err
			}
		}
		return nil
	}
	for {
		var l *streamLine
		select {
		case <-ctx.Done():
			answer()
			return out.Flush()
		case l = <-order:
		}
		select {
		case <-ctx.Done():
			answer()
			return out.Flush()
		case <-l.done:
		}
		switch {
		case errors.Is(l.err, io.EOF):
			if err := answer(); err != nil {
				return err
			}
			return out.Flush()
		case errors.Is(l.err, errLineTooLong):
			l.d = badRequestDecision("", fmt.Sprintf("request line longer than %d bytes", maxLine))
		case l.err != nil:
			answer()
			out.Flush()
			return l.err
		}
		batch = append(batch, l)
		// Answer now unless the next request is already waiting: a
		// harness that sends one line and waits gets its verdict, a bulk
		// stream still writes in large blocks.
		if len(order) == 0 || len(batch) == maxBatch {
			if err := answer(); err != nil {
				return err
			}
		}
		if len(order) == 0 {
			if err := out.Flush(); err != nil {
				return err
			}
		}
	}
}

// maxBatch is how many answers at most wait for one another's audit
// records.
const maxBatch = 256

// heldLines are the lines decided and not yet answered, whose audit
// records are held (Request.HoldAudit). Once the stream stops, what was
// decided is still recorded: the lines held then, and every line a
// check still running decides later.
type heldLines struct {
	mu      sync.Mutex
	lines   map[*streamLine]struct{}
	stopped bool
}

func (h *heldLines) add(e *vtexec.Engine, l *streamLine, d vtexec.Decision) {
	h.mu.Lock()
	l.d = d
	stopped := h.stopped
	if !stopped {
		if h.lines == nil {
			h.lines = map[*streamLine]struct{}{}
		}
		h.lines[l] = struct{}{}
	}
	h.mu.Unlock()
	if stopped {
		e.WriteAudit([]vtexec.Decision{d})
	}
}

// take returns the decisions of ls, in order, no longer held here.
func (h *heldLines) take(ls []*streamLine) []vtexec.Decision {
	ds := make([]vtexec.Decision, len(ls))
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, l := range ls {
		ds[i] = l.d
		delete(h.lines, l)
	}
	return ds
}

// stop records what is held, in the stream's order, and makes later
// lines record themselves.
func (h *heldLines) stop(e *vtexec.Engine) {
	h.mu.Lock()
	h.stopped = true
	ls := slices.SortedFunc(maps.Keys(h.lines), func(a, b *streamLine) int { return cmp.Compare(a.n, b.n) })
	h.mu.Unlock()
	e.WriteAudit(h.take(ls))
}

// readAhead is how many lines are read past the one answered next: a
// line that waits (git inspecting the repository) holds the answers
// after it back, not the checks.
const readAhead = 1024

// streamLine is one request line and, once done is closed, its answer.
type streamLine struct {
	n    int // its place in the stream
	line []byte
	err  error
	d    vtexec.Decision
	done chan struct{}
}

func checkLine(ctx context.Context, cfg streamConfig, line []byte) vtexec.Decision {
	if err := jsonline.Exact(line); err != nil {
		return badRequestDecision("", err.Error())
	}
	sr, err := decodeStreamRequest(line)
	if err != nil {
		return badRequestDecision("", "not a JSON object: "+err.Error())
	}
	req := vtexec.Request{Workspace: cfg.wsDir, Cwd: sr.Cwd, AuditLog: cfg.auditLog, Session: cfg.session, HoldAudit: true}
	if cmd, exact := jsonline.String(sr.Cmd); exact {
		req.Command = cmd
	} else if err := json.Unmarshal(sr.Cmd, &req.Command); err != nil {
		if err := json.Unmarshal(sr.Cmd, &req.Argv); err != nil {
			return badRequestDecision("", `"cmd" must be a string or an array of strings`)
		}
	}
	d, err := cfg.engine.Check(ctx, req)
	if err != nil {
		var re *vtexec.RequestError
		if errors.As(err, &re) {
			return vtexec.Decision{Cmd: req.Command, Decision: vtexec.VerdictDeny, Code: re.Code, Reason: re.Reason, Hint: re.Hint, Commands: []vtexec.Command{}}
		}
		return badRequestDecision(req.Command, err.Error())
	}
	return d
}

func badRequestDecision(cmd, reason string) vtexec.Decision {
	return vtexec.Decision{Cmd: cmd, Decision: vtexec.VerdictDeny, Code: codes.BadRequest, Reason: reason,
		Hint: `send one JSON object a line: {"cmd": "COMMAND", "cwd": "optional/dir"}`, Commands: []vtexec.Command{}}
}

var errLineTooLong = errors.New("line too long")

// readLine returns the next line without its line ending. A line over
// maxLine is consumed whole and reported as errLineTooLong.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(line) == 0 && !tooLong:
			return nil, io.EOF
		case err != nil && err != io.EOF:
			return nil, err
		}
		if tooLong {
			return nil, errLineTooLong
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}
