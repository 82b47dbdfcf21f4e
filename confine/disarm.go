package confine

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// gitDirFiles are files of a git directory that steer git — commondir
// names the directory git takes its configuration and hooks from,
// config.worktree adds configuration — and that git itself never makes
// for the commands vtexec lets write a git directory. Where they are
// missing no read-only bind can keep them missing, so a run's git
// directories are looked at before and after it (AbsentGitFiles,
// Disarm).
var gitDirFiles = []string{"commondir", "config.worktree"}

// AbsentGitFiles lists the gitDirFiles missing from gitDirs now.
func AbsentGitFiles(gitDirs []string) []string {
	var absent []string
	for _, g := range gitDirs {
		for _, name := range gitDirFiles {
			p := filepath.Join(g, name)
			if _, err := os.Lstat(p); err != nil {
				absent = append(absent, p)
			}
		}
	}
	return absent
}

// Disarmed is an entry a run made where it must not be, moved away.
type Disarmed struct {
	Path    string `json:"path"`
	MovedTo string `json:"moved_to"`
	Why     string `json:"why"`
}

// Disarm moves each of paths that exists now (made during the run) into
// the directory quarantine, outside the workspace, and says so. What
// cannot be moved is reported with an empty MovedTo.
func Disarm(paths []string, quarantine, why string) []Disarmed {
	var out []Disarmed
	for _, p := range paths {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		d := Disarmed{Path: p, Why: why}
		if err := os.MkdirAll(quarantine, 0o700); err == nil {
			to := filepath.Join(quarantine, fmt.Sprintf("%d-%s", time.Now().UnixNano(), strings.ReplaceAll(strings.Trim(p, "/"), "/", "_")))
			if moveAway(p, to) == nil {
				d.MovedTo = to
			}
		}
		out = append(out, d)
	}
	return out
}

// moveAway renames from to to, or, across file systems, copies a regular
// file and removes it; anything else is only removed.
func moveAway(from, to string) error {
	if os.Rename(from, to) == nil {
		return nil
	}
	fi, err := os.Lstat(from)
	if err != nil {
		return err
	}
	if fi.Mode().IsRegular() {
		if in, err := os.Open(from); err == nil {
			if out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
				io.Copy(out, io.LimitReader(in, 1<<20))
				out.Close()
			}
			in.Close()
		}
	}
	return os.RemoveAll(from)
}
