package security

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vtexec/vtexec"
)

// Python's linters, formatter and type checker run without asking, so
// what their configuration makes them do is part of the check: a plugin
// or an interpreter it names is code (ask), a file it names is a path
// (refused outside or on a protected name), wherever the tool finds that
// configuration — in the working directory, above the workspace, named
// on the command line, or added by --append-config. python3 -m TOOL is
// the tool unless the working directory holds a module of that name,
// and a PYTHONPATH prefix makes any of them import from the workspace.
func TestPythonToolConfigurationIsPartOfTheCommand(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	e := vtexec.NewEngine(vtexec.Config{TrustedPath: standinPath(t, "flake8", "black", "mypy", "ruff", "python3", "pip", "pip3", "cargo")})
	t.Cleanup(func() { e.Close() })
	write := func(p, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	outside := filepath.Join(base, "outside")
	write(filepath.Join(outside, "cfg.ini"), "[flake8]\nmax-line-length = 100\n")
	project := func(ws string) {
		write(filepath.Join(ws, "src", "demo", "core.py"), "x = 1\n")
		write(filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
	}
	type probe struct{ cmd, want string }
	cases := []struct {
		name   string
		setup  func(ws string)
		probes []probe
	}{
		{"a plain project", func(ws string) {
			project(ws)
			write(filepath.Join(ws, "setup.cfg"), "[flake8]\nmax-line-length = 100\nexclude = .venv\n")
			write(filepath.Join(ws, "pyproject.toml"), "[tool.mypy]\nstrict = true\n[tool.black]\nline-length = 100\n")
		}, []probe{{"flake8 src", "allow"}, {"flake8", "allow"}, {"python3 -m flake8 src", "allow"}, {"mypy src", "allow"},
			{"python3 -m mypy src", "allow"}, {"black --check src", "allow"}, {"black src", "allow"}, {"python3 --version", "allow"},
			{"pip list", "allow"}, {"pip3 show pytest", "allow"}, {"python3 -m pip freeze", "allow"}, {"cargo --version", "allow"}}},
		{"flake8's local plugins", func(ws string) {
			project(ws)
			write(filepath.Join(ws, "setup.cfg"), "[flake8:local-plugins]\nextension =\n    X = checks:Plugin\npaths = ./tools\n")
		}, []probe{{"flake8 src", "ask"}, {"python3 -m flake8 src", "ask"}}},
		{"flake8's local plugins above the workspace", func(ws string) {
			project(ws)
			write(filepath.Join(filepath.Dir(ws), "tox.ini"), "[flake8:local-plugins]\nextension =\n    X = checks:Plugin\npaths = ./ws/tools\n")
		}, []probe{{"flake8 src", "ask"}}},
		{"flake8's local plugins in an added configuration", func(ws string) {
			project(ws)
			write(filepath.Join(ws, "extra.cfg"), "[flake8:local-plugins]\nextension =\n    X = checks:Plugin\n")
		}, []probe{{"flake8 --append-config extra.cfg src", "ask"}, {"flake8 --config extra.cfg src", "ask"}}},
		{"flake8 writing its report outside", func(ws string) {
			project(ws)
			write(filepath.Join(ws, ".flake8"), "[flake8]\noutput-file = "+filepath.Join(outside, "report.txt")+"\n")
		}, []probe{{"flake8 src", "deny"}}},
		{"flake8 writing its report into the git directory", func(ws string) {
			project(ws)
			write(filepath.Join(ws, "tox.ini"), "[flake8]\noutput_file = .git/hooks/pre-commit\n")
		}, []probe{{"flake8 src", "deny"}, {"flake8 --output-file .git/config src", "deny"}}},
		{"flake8 reading a configuration outside", func(ws string) { project(ws) },
			[]probe{{"flake8 --config " + filepath.Join(outside, "cfg.ini") + " src", "deny"}}},
		{"mypy's plugins", func(ws string) {
			project(ws)
			write(filepath.Join(ws, "pyproject.toml"), "[tool.mypy]\nplugins = [\"tools.plugin\"]\n")
		}, []probe{{"mypy src", "ask"}, {"python3 -m mypy src", "ask"}}},
		{"mypy's plugins in mypy.ini", func(ws string) {
			project(ws)
			write(filepath.Join(ws, "mypy.ini"), "[mypy]\nplugins = tools.plugin\n")
			write(filepath.Join(ws, "pyproject.toml"), "[tool.mypy]\nstrict = true\n")
		}, []probe{{"mypy src", "ask"}}},
		{"mypy's interpreter", func(ws string) {
			project(ws)
			write(filepath.Join(ws, "setup.cfg"), "[mypy]\npython_executable = tools/python\n")
		}, []probe{{"mypy src", "ask"}, {"mypy --python-executable tools/python src", "deny"}}},
		{"mypy's cache and reports outside", func(ws string) {
			project(ws)
			write(filepath.Join(ws, "pyproject.toml"), "[tool.mypy]\ncache_dir = \""+filepath.Join(outside, "cache")+"\"\n")
		}, []probe{{"mypy src", "deny"}, {"mypy --config-file pyproject.toml src", "deny"},
			{"mypy --junit-xml " + filepath.Join(outside, "j.xml") + " --config-file /dev/null src", "deny"}}},
		{"mypy's flags that run programs", func(ws string) { project(ws) },
			[]probe{{"mypy --install-types src", "deny"}, {"mypy --pdb src", "deny"}}},
		{"black on protected or outside paths", func(ws string) {
			project(ws)
			write(filepath.Join(ws, "vendor", "lib", ".git", "hooks", "post-checkout.py"), "x=1\n")
		}, []probe{{"black .git", "deny"}, {"black vendor", "deny"}, {"black --check vendor", "allow"},
			{"black " + filepath.Join(outside, "cfg.ini"), "deny"}}},
		{"a module of the tool's name in the working directory", func(ws string) {
			project(ws)
			write(filepath.Join(ws, "flake8.py"), "import os\n")
			write(filepath.Join(ws, "pip", "__init__.py"), "import os\n")
		}, []probe{{"python3 -m flake8 src", "ask"}, {"python3 -m pip list", "ask"}, {"flake8 src", "allow"}}},
		{"an import path into the workspace", func(ws string) { project(ws) },
			[]probe{{"PYTHONPATH=src flake8 src", "ask"}, {"PYTHONPATH=src pip list", "ask"}, {"PYTHONPATH=src black --check src", "ask"}}},
		{"pip's other uses", func(ws string) { project(ws) },
			[]probe{{"pip install requests", "ask"}, {"pip list --outdated", "ask"}, {"pip --python tools/py list", "ask"}}},
		{"configurations that are links out of the workspace", func(ws string) {
			project(ws)
			write(filepath.Join(outside, "plugins.cfg"), "[flake8:local-plugins]\nextension =\n    X = checks:Plugin\n[mypy]\nplugins = x\n")
			require.NoError(t, os.Symlink(filepath.Join(outside, "plugins.cfg"), filepath.Join(ws, "setup.cfg")))
			require.NoError(t, os.Symlink(filepath.Join(outside, "plugins.cfg"), filepath.Join(ws, "mypy.ini")))
		}, []probe{{"flake8 src", "deny"}, {"mypy src", "deny"}}},
		{"ruff in a plain project", func(ws string) {
			project(ws)
			write(filepath.Join(ws, "pyproject.toml"), "[tool.ruff]\nline-length = 100\n[tool.ruff.lint]\nselect = [\"E\", \"F\"]\n")
		}, []probe{{"ruff check src", "allow"}, {"ruff check", "allow"}, {"ruff check --fix src", "allow"}, {"ruff format --check .", "allow"},
			{"ruff format src", "allow"}, {"ruff --version", "allow"}, {"ruff rule F401", "allow"},
			{"ruff check @args.txt", "deny"}, {"ruff check --watch src", "deny"}, {"ruff server", "ask"},
			{"ruff check -o " + filepath.Join(outside, "r.txt") + " src", "deny"}, {"ruff check --config \"cache-dir='/tmp/x'\" src", "ask"},
			{"ruff check --config " + filepath.Join(outside, "cfg.ini") + " src", "deny"}}},
		{"ruff's cache outside", func(ws string) {
			project(ws)
			write(filepath.Join(ws, "ruff.toml"), "cache-dir = \""+filepath.Join(outside, "cache")+"\"\n")
		}, []probe{{"ruff check src", "deny"}, {"ruff format --check src", "deny"}}},
		{"ruff's configuration extending one outside, from above the workspace", func(ws string) {
			project(ws)
			write(filepath.Join(filepath.Dir(ws), ".ruff.toml"), "extend = \""+filepath.Join(outside, "base.toml")+"\"\n")
		}, []probe{{"ruff check src", "deny"}}},
		{"ruff formatting the git directory", func(ws string) {
			project(ws)
			write(filepath.Join(ws, ".git", "hooks", "pre-commit.py"), "x=1\n")
		}, []probe{{"ruff format .", "deny"}, {"ruff format --check .", "allow"}, {"ruff check --fix .", "deny"}}},
		{"a rust toolchain file", func(ws string) {
			project(ws)
			write(filepath.Join(ws, "rust-toolchain.toml"), "[toolchain]\npath = \"tools/rust\"\n")
		}, []probe{{"cargo --version", "ask"}}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := filepath.Join(base, "case", string(rune('a'+i)), "ws")
			tc.setup(ws)
			for _, p := range tc.probes {
				d, err := e.Check(context.Background(), vtexec.Request{Command: p.cmd, Workspace: ws, AuditLog: "off"})
				require.NoError(t, err)
				assert.Equal(t, p.want, string(d.Decision), "%s: %s %s", p.cmd, d.Code, d.Reason)
			}
		})
	}
}

// cargo fmt, metadata and tree run none of the package's code, so they
// run without asking — unless cargo's configuration (.cargo/config.toml
// here or above the workspace) names a compiler, wrapper or linker, an
// alias for the subcommand or an environment setting for what cargo
// starts, or a rust-toolchain file could pick another cargo.
func TestCargoConfigurationIsPartOfTheCommand(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	e := vtexec.NewEngine(vtexec.Config{TrustedPath: standinPath(t, "cargo")})
	t.Cleanup(func() { e.Close() })
	write := func(p, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	crate := func(ws string) {
		write(filepath.Join(ws, "Cargo.toml"), "[package]\nname = \"c\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
		write(filepath.Join(ws, "src", "lib.rs"), "pub fn f() {}\n")
	}
	queries := []string{"cargo fmt", "cargo fmt --check", "cargo fmt -- --check", "cargo metadata --format-version 1 --no-deps", "cargo tree"}
	cases := []struct {
		name  string
		setup func(ws string)
		want  string
	}{
		{"a plain crate", crate, "allow"},
		{"harmless settings", func(ws string) {
			crate(ws)
			write(filepath.Join(ws, ".cargo", "config.toml"), "[env]\nRUST_TEST_THREADS = \"1\"\n[term]\ncolor = \"never\"\n")
		}, "allow"},
		{"a compiler wrapper", func(ws string) {
			crate(ws)
			write(filepath.Join(ws, ".cargo", "config.toml"), "[build]\nrustc-wrapper = \"./tools/wrap\"\n")
		}, "ask"},
		{"a wrapper above the workspace", func(ws string) {
			crate(ws)
			write(filepath.Join(filepath.Dir(ws), ".cargo", "config"), "[build]\nrustc = \"/tmp/rustc\"\n")
		}, "ask"},
		{"a linker for a target", func(ws string) {
			crate(ws)
			write(filepath.Join(ws, ".cargo", "config.toml"), "[target.x86_64-unknown-linux-gnu]\nlinker = \"./tools/ld\"\n")
		}, "ask"},
		{"an environment for what cargo starts", func(ws string) {
			crate(ws)
			write(filepath.Join(ws, ".cargo", "config.toml"), "[env]\nLD_PRELOAD = \"./tools/x.so\"\n")
		}, "ask"},
		{"aliases", func(ws string) {
			crate(ws)
			write(filepath.Join(ws, ".cargo", "config.toml"), "[alias]\nfmt = \"run --bin x\"\nmetadata = \"run\"\ntree = \"run\"\n")
		}, "ask"},
		{"a toolchain file", func(ws string) {
			crate(ws)
			write(filepath.Join(ws, "rust-toolchain.toml"), "[toolchain]\npath = \"./tools/rust\"\n")
		}, "ask"},
		{"a configuration that is a link", func(ws string) {
			crate(ws)
			write(filepath.Join(base, "elsewhere", "config.toml"), "[build]\nrustc-wrapper = \"/tmp/w\"\n")
			require.NoError(t, os.MkdirAll(filepath.Join(ws, ".cargo"), 0o755))
			require.NoError(t, os.Symlink(filepath.Join(base, "elsewhere", "config.toml"), filepath.Join(ws, ".cargo", "config.toml")))
		}, "ask"},
		{"a configuration that does not parse", func(ws string) {
			crate(ws)
			write(filepath.Join(ws, ".cargo", "config.toml"), "[build\nrustc = 1\n")
		}, "ask"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := filepath.Join(base, "case", string(rune('a'+i)), "ws")
			tc.setup(ws)
			for _, cmd := range queries {
				d, err := e.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
				require.NoError(t, err)
				assert.Equal(t, tc.want, string(d.Decision), "%s: %s %s", cmd, d.Code, d.Reason)
			}
		})
	}
	ws := filepath.Join(base, "flags", "ws")
	crate(ws)
	for cmd, want := range map[string]string{
		"cargo fmt --config build.rustc=/bin/sh":     "deny",
		"cargo fmt -- --config-path ../rustfmt.toml": "deny",
		"cargo fmt -- --config-path rustfmt.toml":    "ask",
		"cargo build": "ask",
		"cargo test":  "ask",
		"cargo clean": "ask",
	} {
		d, err := e.Check(context.Background(), vtexec.Request{Command: cmd, Workspace: ws, AuditLog: "off"})
		require.NoError(t, err)
		assert.Equal(t, want, string(d.Decision), "%s: %s %s", cmd, d.Code, d.Reason)
	}
}
