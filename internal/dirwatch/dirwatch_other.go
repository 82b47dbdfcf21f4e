//go:build !linux

// Package dirwatch tells whether directories have changed. Only Linux
// has a watch (inotify's): here New returns nil, which reports every
// directory changed, and the callers compare identities instead.
package dirwatch

import "os"

// Watch is never made here.
type Watch struct{}

func New() *Watch                                      { return nil }
func NewEntries() *Watch                               { return nil }
func (w *Watch) Add(string) bool                       { return false }
func (w *Watch) AddFollow(string) bool                 { return false }
func (w *Watch) AddNames(string, bool, ...string) bool { return false }
func (w *Watch) AddPaths(...string) bool               { return false }
func (w *Watch) Changed() bool                         { return true }
func Drain()                                           {}
func (w *Watch) Seen() bool                            { return true }
func (w *Watch) Close()                                {}
func (w *Watch) Share() *Watch                         { return nil }
func ReadPerRequest(bool)                              {}
func RequestBegins()                                   {}
func Instance() *os.File                               { return nil }
