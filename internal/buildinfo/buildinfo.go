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
	var rev, when string
	modified, cgo := false, false
	for _, s := range info.Settings {
		switch s.Key {
		case "CGO_ENABLED":
			cgo = s.Value == "1"
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	switch {
	case rev != "":
		v += " commit " + rev[:min(12, len(rev))]
		if when != "" {
			v += " (" + when + ")"
		}
		if modified {
			v += ", with uncommitted changes"
		}
	case v == "(devel)":
		v += ", built without version control information (-buildvcs=false)"
	}
	v += " " + info.GoVersion
	if cgo {
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
	var rev string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" && (id == "" || id == "(devel)") {
		return "", false
	}
	if rev != "" {
		id += " commit " + rev
	}
	if modified {
		return id + ", with uncommitted changes", false
	}
	return id, true
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
