//go:build !windows

package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Environment switches that turn the test binary into a child writer process.
const (
	envChildPath = "VTEXEC_AUDIT_TEST_CHILD_PATH"
	envChildID   = "VTEXEC_AUDIT_TEST_CHILD_ID"
	envChildGo   = "VTEXEC_AUDIT_TEST_CHILD_GO"
)

const recordsPerWriter = 500

func TestMain(m *testing.M) {
	if path := os.Getenv(envChildPath); path != "" {
		if err := childMain(path, os.Getenv(envChildID), os.Getenv(envChildGo)); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childMain waits for the go file to appear (so all writers start together),
// then appends recordsPerWriter records as writer id.
func childMain(path, id, goFile string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(goFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out waiting for %s", goFile)
		}
		time.Sleep(time.Millisecond)
	}
	l, err := Open(path)
	if err != nil {
		return err
	}
	for seq := range recordsPerWriter {
		if err := l.Write(stressRecord(id, seq)); err != nil {
			return err
		}
	}
	return l.Close()
}

// payloadSize varies record sizes: mostly small, some around 4 KiB, and
// every seventh well over 8 KiB.
func payloadSize(seq int) int {
	switch {
	case seq%7 == 0:
		return 8*1024 + 1 + (seq*997)%(40*1024)
	case seq%5 == 0:
		return 4000 + seq%200
	default:
		return seq % 300
	}
}

// stressRecord is the deterministic record writer id writes as number seq;
// its payload is made of one letter derived from the writer so any torn or
// interleaved line would fail to match.
func stressRecord(id string, seq int) Record {
	letter := string(rune('a' + int(id[len(id)-1]-'0')%26))
	if id[0] == 'p' {
		letter = strings.ToUpper(letter)
	}
	code := seq
	return Record{
		Kind:     KindExecution,
		Session:  id,
		Command:  fmt.Sprintf("%s %d %s", id, seq, strings.Repeat(letter, payloadSize(seq))),
		Argv:     [][]string{{"writer", id}, {"seq", strconv.Itoa(seq)}},
		Decision: "allow",
		ExitCode: &code,
		BytesOut: int64(payloadSize(seq)),
	}
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, len(data) == 0 || data[len(data)-1] == '\n', "file must end with a newline")
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	require.NoError(t, sc.Err())
	return lines
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path)
	require.NoError(t, err)
	zero, one := 0, 1
	ts := time.Date(2025, 3, 4, 5, 6, 7, 123456789, time.UTC)
	want := []Record{
		{
			Time: ts, Kind: KindDecision, Session: "s1", Cwd: "/ws",
			Command: "make test && go vet ./... <x> & y", Argv: [][]string{{"make", "test"}, {"go", "vet", "./..."}},
			Decision: "allow", Code: "ok", Rule: "allow make test", RuleFile: "/ws/.vtexec/policy.toml",
			Approval: "session",
		},
		{
			Time: ts.Add(time.Second), Kind: KindExecution, Session: "s1", Cwd: "/ws",
			Command: "make test", Decision: "allow", ExitCode: &zero, DurationMs: 1234,
			BytesOut: 99, Truncated: true, TimedOut: true,
		},
		{Time: ts.Add(2 * time.Second), Kind: KindExecution, Decision: "allow", ExitCode: &one},
	}
	for _, r := range want {
		require.NoError(t, l.Write(r))
	}
	require.NoError(t, l.Close())

	lines := readLines(t, path)
	require.Len(t, lines, len(want))
	for i, line := range lines {
		var got Record
		require.NoError(t, json.Unmarshal(line, &got))
		assert.True(t, want[i].Time.Equal(got.Time))
		got.Time = want[i].Time
		assert.Equal(t, want[i], got)
	}
	assert.Contains(t, string(lines[0]), `"time":"2025-03-04T05:06:07.123456789Z"`)
	assert.Contains(t, string(lines[0]), `<x> & y`, "HTML escaping is off")
	assert.Contains(t, string(lines[1]), `"exit_code":0`, "exit code 0 is kept")
}

func TestZeroFieldsOmitted(t *testing.T) {
	line, err := encode(Record{Kind: KindDecision})
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(line, &m))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"time", "kind", "decision"}, keys)
	assert.Equal(t, "", m["decision"])
}

func TestTimeDefault(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path)
	require.NoError(t, err)
	before := time.Now()
	require.NoError(t, l.Write(Record{Kind: KindDecision, Decision: "allow"}))
	after := time.Now()
	// A non-UTC time is converted to UTC.
	ts := time.Date(2025, 1, 2, 3, 4, 5, 6, time.FixedZone("X", 3600))
	require.NoError(t, l.Write(Record{Time: ts, Kind: KindDecision, Decision: "allow"}))
	require.NoError(t, l.Close())

	lines := readLines(t, path)
	require.Len(t, lines, 2)
	var raw struct{ Time string }
	require.NoError(t, json.Unmarshal(lines[0], &raw))
	got, err := time.Parse(time.RFC3339Nano, raw.Time)
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(raw.Time, "Z"), raw.Time)
	assert.False(t, got.Before(before.Truncate(time.Microsecond)) || got.After(after), "%v not in [%v, %v]", got, before, after)

	require.NoError(t, json.Unmarshal(lines[1], &raw))
	assert.Equal(t, "2025-01-02T02:04:05.000000006Z", raw.Time)
}

func TestControlCharactersStayOnOneLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path)
	require.NoError(t, err)
	cmd := "echo 'a\nb' \x1b[31mred\x1b[0m\r\x00\u2028\u2029\t"
	fake := `"}` + "\n" + `{"time":"2020-01-01T00:00:00Z","kind":"decision","decision":"allow"}`
	require.NoError(t, l.Write(Record{Kind: KindDecision, Command: cmd, Argv: [][]string{{"echo", "a\nb"}}, Decision: "forbidden", Cwd: "/tmp/\n"}))
	require.NoError(t, l.Write(Record{Kind: KindDecision, Command: fake, Decision: "forbidden"}))
	require.NoError(t, l.Close())

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, 2, bytes.Count(data, []byte("\n")))
	assert.NotContains(t, string(data), "\x1b")
	assert.NotContains(t, string(data), "\r")
	assert.NotContains(t, string(data), "\x00")
	lines := readLines(t, path)
	require.Len(t, lines, 2)
	var got Record
	require.NoError(t, json.Unmarshal(lines[0], &got))
	assert.Equal(t, cmd, got.Command)
	assert.Equal(t, [][]string{{"echo", "a\nb"}}, got.Argv)
	assert.Equal(t, "/tmp/\n", got.Cwd)
	require.NoError(t, json.Unmarshal(lines[1], &got))
	assert.Equal(t, fake, got.Command)
	assert.Equal(t, "forbidden", got.Decision)
}

// TestConcurrentWriters runs 8 goroutines in this process and 4 child
// processes, each appending 500 records of varying size (some > 8 KiB) to the
// same file at the same time, then checks that no line was torn, lost,
// duplicated or interleaved.
func TestConcurrentWriters(t *testing.T) {
	const goroutines, processes = 8, 4
	dir := t.TempDir()
	path := filepath.Join(dir, "state", "audit.jsonl")
	goFile := filepath.Join(dir, "go")

	exe, err := os.Executable()
	require.NoError(t, err)
	var children []*exec.Cmd
	var stderrs []*bytes.Buffer
	for p := range processes {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(),
			envChildPath+"="+path,
			envChildID+"="+fmt.Sprintf("p%d", p),
			envChildGo+"="+goFile,
		)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		children = append(children, cmd)
		stderrs = append(stderrs, &stderr)
	}
	t.Cleanup(func() {
		for _, c := range children {
			if c.ProcessState == nil {
				_ = c.Process.Kill()
				_ = c.Wait()
			}
		}
	})

	l, err := Open(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(goFile, nil, 0o600))

	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			id := fmt.Sprintf("g%d", g)
			for seq := range recordsPerWriter {
				if err := l.Write(stressRecord(id, seq)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, l.Close())
	for i, c := range children {
		require.NoError(t, c.Wait(), "child p%d: %s", i, stderrs[i])
	}

	lines := readLines(t, path)
	require.Len(t, lines, (goroutines+processes)*recordsPerWriter)

	seen := make(map[string]int)
	bigLines := 0
	for i, line := range lines {
		var got Record
		require.NoError(t, json.Unmarshal(line, &got), "line %d", i+1)
		// The line round-trips byte for byte.
		again, err := encode(got)
		require.NoError(t, err)
		require.Equal(t, string(line)+"\n", string(again), "line %d", i+1)
		// And it is exactly the record that writer wrote as that seq.
		require.NotNil(t, got.ExitCode, "line %d", i+1)
		want := stressRecord(got.Session, *got.ExitCode)
		want.Time = got.Time
		require.Equal(t, want, got, "line %d", i+1)
		seen[fmt.Sprintf("%s/%d", got.Session, *got.ExitCode)]++
		if len(line) > 8*1024 {
			bigLines++
		}
	}
	for _, prefix := range []string{"g", "p"} {
		n := goroutines
		if prefix == "p" {
			n = processes
		}
		for w := range n {
			for seq := range recordsPerWriter {
				key := fmt.Sprintf("%s%d/%d", prefix, w, seq)
				require.Equal(t, 1, seen[key], "writer/seq %s", key)
			}
		}
	}
	assert.Len(t, seen, (goroutines+processes)*recordsPerWriter)
	assert.Greater(t, bigLines, 0, "some records must exceed 8 KiB")
}

func TestOpenPermissions(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)

	base := t.TempDir()
	path := filepath.Join(base, "a", "b", "audit.jsonl")
	l, err := Open(path)
	require.NoError(t, err)
	require.NoError(t, l.Close())

	for _, d := range []string{filepath.Join(base, "a"), filepath.Join(base, "a", "b")} {
		fi, err := os.Stat(d)
		require.NoError(t, err)
		assert.True(t, fi.IsDir())
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), d)
	}
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	// Reopening appends rather than truncating.
	for range 2 {
		l, err := Open(path)
		require.NoError(t, err)
		require.NoError(t, l.Write(Record{Kind: KindDecision, Decision: "allow"}))
		require.NoError(t, l.Close())
	}
	assert.Len(t, readLines(t, path), 2)
}

func TestOpenError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err := Open(filepath.Join(file, "sub", "audit.jsonl"))
	assert.Error(t, err)
}

func TestNilLogIsDisabled(t *testing.T) {
	var l *Log
	assert.NoError(t, l.Write(Record{Kind: KindDecision, Decision: "allow"}))
	assert.NoError(t, l.Close())
}

func TestWriteAfterClose(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "audit.jsonl"))
	require.NoError(t, err)
	require.NoError(t, l.Close())
	require.NoError(t, l.Close(), "second Close is a no-op")
	assert.ErrorIs(t, l.Write(Record{Kind: KindDecision}), os.ErrClosed)
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/xdg/state")
	p, err := DefaultPath()
	require.NoError(t, err)
	assert.Equal(t, "/xdg/state/vtexec/audit.jsonl", p)

	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"", "relative/state"} {
		t.Setenv("XDG_STATE_HOME", v)
		p, err = DefaultPath()
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(home, ".local", "state", "vtexec", "audit.jsonl"), p, "XDG_STATE_HOME=%q", v)
	}
}
