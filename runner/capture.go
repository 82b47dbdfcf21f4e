package runner

import "github.com/vtexec/vtexec/internal/capture"

// Capture keeps a command's output in bounded memory (capture.Capture).
type Capture = capture.Capture

// NewCapture returns a Capture that keeps at most max bytes.
func NewCapture(max int) *Capture { return capture.New(max) }
