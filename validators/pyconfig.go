package validators

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/vtexec/vtexec/internal/fsutil"
)

// Python tools read their configuration from INI files (setup.cfg,
// tox.ini, .flake8, mypy.ini) and pyproject.toml. What they read there is
// part of the command: a key that loads a plugin or runs an interpreter
// runs code, and a key that names a file is a path like any argument.

// maxPyConfig bounds a configuration file vtexec reads.
const maxPyConfig = 1 << 20

// iniFile is a configuration file as Python's configparser reads it:
// sections of keys, keys lower-cased, values with continuation lines
// joined by newlines.
type iniFile map[string]map[string]string

// errNoConfig is a configuration file that is not there.
var errNoConfig = errors.New("no such configuration file")

// readConfigFile reads a regular file of at most maxPyConfig bytes,
// following no final link; errNoConfig when there is none.
func readConfigFile(path string) ([]byte, error) {
	data, _, err := fsutil.ReadRegular(path, maxPyConfig, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errNoConfig
	}
	return data, err
}

// parseINI reads data as configparser does (comments start with # or ;,
// a key is separated from its value by = or :, an indented line
// continues the value before it). Lines it cannot read are an error, as
// configparser's are.
func parseINI(data []byte) (iniFile, error) {
	out := iniFile{}
	var section map[string]string
	key := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxPyConfig)
	for n := 1; sc.Scan(); n++ {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
			continue
		case raw[0] == ' ' || raw[0] == '\t':
			if section == nil || key == "" {
				return nil, errors.New("a continuation line before any key")
			}
			section[key] += "\n" + line
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			name := strings.TrimSpace(line[1 : len(line)-1])
			if out[name] == nil {
				out[name] = map[string]string{}
			}
			section, key = out[name], ""
		default:
			i := strings.IndexAny(line, "=:")
			if section == nil || i <= 0 {
				return nil, errors.New("a line that is neither a section, a key nor a comment: " + line)
			}
			key = strings.ToLower(strings.TrimSpace(line[:i]))
			section[key] = strings.TrimSpace(line[i+1:])
		}
	}
	return out, sc.Err()
}

// readINI reads and parses the INI file at path.
func readINI(path string) (iniFile, error) {
	data, err := readConfigFile(path)
	if err != nil {
		return nil, err
	}
	return parseINI(data)
}

// pyprojectTool returns the [tool.NAME] table of the pyproject.toml at
// path, nil when it has none.
func pyprojectTool(path, name string) (map[string]any, error) {
	data, err := readConfigFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Tool map[string]map[string]any `toml:"tool"`
	}
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	return doc.Tool[name], nil
}

// optionKey is a configuration key as the tools compare them: lower case,
// "_" for "-".
func optionKey(k string) string { return strings.ReplaceAll(strings.ToLower(k), "-", "_") }

// configValueStrings is a TOML value as strings (a string, or a list of
// them); nil for anything else.
func configValueStrings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// splitConfigList splits an INI value that is a list (commas, newlines).
func splitConfigList(v string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '\n' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
