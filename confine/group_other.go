//go:build !linux && !windows

package confine

import "os/exec"

// Group bounds the processes of one run; here it groups nothing.
type Group struct{}

// NewGroup returns nil: there are no process groups to make here.
func (b *Box) NewGroup() (*Group, error) { return nil, nil }

// Close does nothing.
func (g *Group) Close() {}

// OOMKills is -1: there is no memory cgroup here.
func (g *Group) OOMKills() int { return -1 }

func (g *Group) prepare(cmd *exec.Cmd)     {}
func (g *Group) adopt(cmd *exec.Cmd) error { return nil }
