package vtexec

import (
	"errors"
	"os"
	"path/filepath"
)

// ConfigDir is where the user's policy lives: $XDG_CONFIG_HOME/vtexec, or
// ~/.config/vtexec.
func ConfigDir() (string, error) {
	return xdgDir("XDG_CONFIG_HOME", ".config")
}

// StateDir is where sessions, the trust store and the audit log live:
// $XDG_STATE_HOME/vtexec, or ~/.local/state/vtexec.
func StateDir() (string, error) {
	return xdgDir("XDG_STATE_HOME", filepath.Join(".local", "state"))
}

func xdgDir(env, fallback string) (string, error) {
	if d := os.Getenv(env); filepath.IsAbs(d) {
		return filepath.Join(d, "vtexec"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", errors.New("no home directory: set " + env)
	}
	return filepath.Join(home, fallback, "vtexec"), nil
}

// PolicyFiles are the policy layers of a workspace, weakest first.
type PolicyFiles struct {
	User         string // ConfigDir/policy.toml
	Project      string // ROOT/.vtexec/policy.toml, meant to be committed
	ProjectLocal string // ROOT/.vtexec/policy.local.toml, where "always" answers go
	TrustStore   string // StateDir/trusted.json
}

// PolicyFilesFor returns the policy layers of the workspace root.
func PolicyFilesFor(root string) (PolicyFiles, error) {
	cfg, err := ConfigDir()
	if err != nil {
		return PolicyFiles{}, err
	}
	state, err := StateDir()
	if err != nil {
		return PolicyFiles{}, err
	}
	return PolicyFiles{
		User:         filepath.Join(cfg, "policy.toml"),
		Project:      filepath.Join(root, ".vtexec", "policy.toml"),
		ProjectLocal: filepath.Join(root, ".vtexec", "policy.local.toml"),
		TrustStore:   filepath.Join(state, "trusted.json"),
	}, nil
}
