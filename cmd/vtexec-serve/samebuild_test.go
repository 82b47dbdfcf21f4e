package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A helper of another build would read this program's spec another way:
// only builds that name one source exactly, the same one, match.
func TestSameBuildOnlyForOneExactSource(t *testing.T) {
	build := func(version, rev string, modified bool) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/vtexec/vtexec", Version: version}}
		if rev != "" {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: "vcs.revision", Value: rev})
		}
		if modified {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: "vcs.modified", Value: "true"})
		}
		return info
	}
	assert.True(t, sameBuild(build("v1.2.3", "", false), build("v1.2.3", "", false)))
	assert.True(t, sameBuild(build("(devel)", "abc", false), build("(devel)", "abc", false)))
	assert.False(t, sameBuild(build("v1.2.3", "", false), build("v1.2.4", "", false)), "another version")
	assert.False(t, sameBuild(build("(devel)", "abc", false), build("(devel)", "abd", false)), "another commit")
	assert.False(t, sameBuild(build("(devel)", "abc", true), build("(devel)", "abc", true)), "uncommitted changes: maybe other code")
	assert.False(t, sameBuild(build("(devel)", "abc", false), build("(devel)", "abc", true)))
	assert.False(t, sameBuild(build("(devel)", "", false), build("(devel)", "", false)), "nothing names the source")
}
