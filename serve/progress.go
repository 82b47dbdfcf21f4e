package serve

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vtexec/vtexec"
)

// progressEvery is how often a running command reports its progress,
// the first time once it has run that long.
var progressEvery = time.Second

// progressTail is how much of the end of each stream a report carries.
const progressTail = 1 << 10

// reportProgress sends a progress notification every progressEvery while
// the command of r runs, if the client asked for progress with a token;
// each carries the time it has run and the end of its latest output. The
// returned stop ends the reports; none is sent after it returns.
func reportProgress(ctx context.Context, req *mcp.CallToolRequest, r *vtexec.Request) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return func() {}
	}
	started := make(chan func() (string, string), 1)
	r.Started = func(output func() (string, string)) { started <- output }
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var output func() (string, string)
		select {
		case output = <-started:
		case <-done:
			return
		}
		start := time.Now()
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
			case <-done:
				return
			}
			ran := time.Since(start)
			stdout, stderr := output()
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token,
				Progress:      ran.Seconds(),
				Message:       progressMessage(ran, stdout, stderr),
			})
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

func progressMessage(ran time.Duration, stdout, stderr string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "running for %s", ran.Round(time.Second))
	for _, s := range []struct{ name, text string }{{"stdout", stdout}, {"stderr", stderr}} {
		if s.text == "" {
			continue
		}
		t := strings.ToValidUTF8(s.text, "\uFFFD")
		fmt.Fprintf(&b, "\n%s (last lines):\n%s", s.name, lastLines(t, progressTail))
	}
	return b.String()
}

// lastLines returns the end of s, at most max bytes, from a line start
// if there is one in it.
func lastLines(s string, max int) string {
	if len(s) <= max {
		return s
	}
	t := s[len(s)-max:]
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < len(t)-1 {
		return t[i+1:]
	}
	return strings.ToValidUTF8(t, "")
}
