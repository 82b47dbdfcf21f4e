// Package buildinfo says which build of vtexec is running: vtexec and
// vtexec-serve report it alike.
package buildinfo

import "runtime/debug"

// Version is the module version vtexec was built as, with the commit
// when the build knows it.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	s := settingsOf(info)
	switch {
	case s.rev != "":
		v += " commit " + s.rev[:min(12, len(s.rev))]
		if s.when != "" {
			v += " (" + s.when + ")"
		}
		if s.modified {
			v += ", with uncommitted changes"
		}
	case v == "(devel)":
		v += ", built without version control information (-buildvcs=false)"
	}
	v += " " + info.GoVersion
	if s.cgo {
		return v + ", with cgo (each process starts the dynamic loader first: see the README's Install)"
	}
	return v + ", static"
}

// Identity names the source a build was made from: its module version
// and, when the build recorded them, its commit and whether the tree
// had changes. It is "" for a build that recorded neither a version nor
// a commit, which nothing tells from another.
func Identity() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	id, _ := IdentityOf(info)
	return id
}

// IdentityOf is Identity of the build info, and whether it names one
// source exactly: a version or a commit, and no uncommitted changes (two
// builds of one commit with changes may hold different code).
func IdentityOf(info *debug.BuildInfo) (id string, exact bool) {
	id = info.Main.Version
	s := settingsOf(info)
	if s.rev == "" && (id == "" || id == "(devel)") {
		return "", false
	}
	if s.rev != "" {
		id += " commit " + s.rev
	}
	if s.modified {
		return id + ", with uncommitted changes", false
	}
	return id, true
}

// settings are the build settings Version and IdentityOf read.
type settings struct {
	rev, when     string
	modified, cgo bool
}

func settingsOf(info *debug.BuildInfo) settings {
	var s settings
	for _, kv := range info.Settings {
		switch kv.Key {
		case "CGO_ENABLED":
			s.cgo = kv.Value == "1"
		case "vcs.revision":
			s.rev = kv.Value
		case "vcs.time":
			s.when = kv.Value
		case "vcs.modified":
			s.modified = kv.Value == "true"
		}
	}
	return s
}

// InstallCommand installs both programs at this build's version (latest
// when the build knows none), or builds them in a clone.
func InstallCommand() string {
	v := Module()
	if v == "" || v == "(devel)" {
		v = "latest"
	}
	return "CGO_ENABLED=0 go install github.com/vtexec/vtexec/cmd/...@" + v + " (or go build -o DIR/ ./cmd/vtexec ./cmd/vtexec-serve in a clone)"
}

// CallerEnv is where vtexec serve puts its Identity for vtexec-serve,
// which starts only for a caller of its own build.
const CallerEnv = "VTEXEC_SERVE_CALLER_BUILD"

// Module is the module version alone ("v1.2.3", "(devel)"), or "" when
// the build recorded none.
func Module() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		return info.Main.Version
	}
	return ""
}
