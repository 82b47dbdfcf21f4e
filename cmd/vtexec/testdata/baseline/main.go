// Command baseline does nothing, but links the third-party packages
// vtexec imports, so their init and Go's runtime start-up cost it what
// they cost vtexec. BenchmarkStartup compares vtexec against it;
// TestBaselineLinksWhatVtexecLinks keeps the list whole.
package main

import (
	_ "github.com/google/uuid"
	_ "github.com/landlock-lsm/go-landlock/landlock/syscall"
	_ "github.com/pelletier/go-toml/v2"
	_ "golang.org/x/mod/modfile"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/term"
	_ "mvdan.cc/sh/v3/expand"
	_ "mvdan.cc/sh/v3/interp"
	_ "mvdan.cc/sh/v3/syntax"
)

func main() {}
