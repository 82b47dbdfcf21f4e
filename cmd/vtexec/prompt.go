package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/vtexec/vtexec"
)

// ttyApprover asks a person on the controlling terminal, one key:
// o once, s session, a always, d deny. Enter, EOF, Ctrl-C, Ctrl-D or the
// timeout mean deny; other keys are ignored.
type ttyApprover struct {
	tty     *os.File
	timeout time.Duration
}

// terminalApprover returns an approver on /dev/tty, or nil when there is
// no person to ask: CI=true, stdin not a terminal, or no /dev/tty.
func terminalApprover(stdin io.Reader, timeout time.Duration) vtexec.Approver {
	if os.Getenv("CI") == "true" {
		return nil
	}
	f, ok := stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	return &ttyApprover{tty: tty, timeout: timeout}
}

func (a *ttyApprover) Approve(ctx context.Context, q vtexec.Question) (vtexec.Answer, error) {
	// Raw mode first, then the question: a key typed as soon as the
	// question shows is read as a key, never held in a line buffer.
	fd := int(a.tty.Fd())
	old, err := term.MakeRaw(fd)
	if err != nil {
		return vtexec.AnswerDeny, err
	}
	answer, err := a.ask(ctx, q)
	term.Restore(fd, old)
	fmt.Fprintf(a.tty, "%s\n", answer)
	return answer, err
}

func (a *ttyApprover) ask(ctx context.Context, q vtexec.Question) (vtexec.Answer, error) {
	// Raw mode does no output processing: end lines with \r\n ourselves.
	if _, err := io.WriteString(a.tty, strings.ReplaceAll(q.Text(), "\n", "\r\n")); err != nil {
		return vtexec.AnswerDeny, err
	}
	return a.readAnswer(ctx, q)
}

func (a *ttyApprover) readAnswer(ctx context.Context, q vtexec.Question) (vtexec.Answer, error) {
	keys := make(chan byte)
	done := make(chan struct{})
	defer close(done)
	go func() {
		buf := make([]byte, 1)
		for {
			n, err := a.tty.Read(buf)
			if err != nil || n == 0 {
				close(keys)
				return
			}
			select {
			case keys <- buf[0]:
			case <-done:
				return
			}
		}
	}()
	timer := time.NewTimer(a.timeout)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return vtexec.AnswerDeny, ctx.Err()
		case <-timer.C:
			return vtexec.AnswerDeny, errors.New("no answer before the timeout")
		case k, ok := <-keys:
			if !ok {
				return vtexec.AnswerDeny, nil
			}
			switch k {
			case 'o', 'O':
				return vtexec.AnswerOnce, nil
			case 's', 'S':
				return vtexec.AnswerSession, nil
			case 'a', 'A':
				if !q.NeverAlways {
					return vtexec.AnswerAlways, nil
				}
			case 'n', 'N':
				if q.Network {
					return vtexec.AnswerNetwork, nil
				}
			case 'd', 'D', '\r', '\n', 0x03, 0x04, 0x1b:
				return vtexec.AnswerDeny, nil
			}
		}
	}
}
