package validators

import (
	"slices"
	"strings"
	"sync"
)

// networkUses are the programs that fetch from the network for some of
// their subcommands: installers, fetchers, package managers. Which uses
// they are is decided from the words, the way the tool reads them.
var networkUses = sync.OnceValue(func() map[string]func(args []string) bool {
	return map[string]func(args []string) bool{
		"npm":   subcommandIn("install", "i", "ci", "add", "update", "up", "upgrade", "exec", "x", "publish", "view", "info", "outdated", "audit", "login"),
		"pnpm":  subcommandIn("install", "i", "add", "update", "up", "dlx", "fetch", "outdated", "audit"),
		"yarn":  subcommandIn("install", "add", "upgrade", "up", "dlx", "info", "outdated", "npm"),
		"bun":   subcommandIn("install", "i", "add", "update", "x"),
		"pip":   pipFetches,
		"pip3":  pipFetches,
		"cargo": subcommandIn("fetch", "install", "update", "search", "publish", "add"),
		"go": func(args []string) bool {
			words := positionals(args)
			return len(words) >= 2 && words[0] == "mod" && slices.Contains([]string{"download", "tidy"}, words[1]) ||
				len(words) >= 1 && words[0] == "get" ||
				len(words) >= 2 && words[0] == "install" && strings.Contains(words[1], "@")
		},
	}
})

// positionals are the arguments that are not flags.
func positionals(args []string) []string {
	var out []string
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	return out
}

func subcommandIn(subs ...string) func([]string) bool {
	return func(args []string) bool {
		words := positionals(args)
		return len(words) > 0 && slices.Contains(subs, words[0])
	}
}

// pipFetches: pip install, download and wheel fetch unless --no-index.
func pipFetches(args []string) bool {
	return subcommandIn("install", "download", "wheel", "search", "index")(args) && !slices.Contains(args, "--no-index")
}
