//go:build linux && amd64

package vspawn

import "os/signal"

var (
	signalNotify = signal.Notify
	signalStop   = signal.Stop
	signalIgnore = signal.Ignore
	signalReset  = signal.Reset
)
