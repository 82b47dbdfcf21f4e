package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzCheckStream: whatever one line of check --jsonl holds, it gets one
// answer line of its own and the stream goes on: the next line is
// answered as if it came alone.
func FuzzCheckStream(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"cmd":1}`, `{"cmd":["ls",1]}`, "\xff", `{"cmd":"\ud800"}`, `[[[[`, `{"cmd":"ls; rm -rf /"}`, ``} {
		f.Add(s)
	}
	ws := f.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("x\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Setenv("XDG_STATE_HOME", f.TempDir())
	f.Setenv("XDG_CONFIG_HOME", f.TempDir())
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n") {
			return
		}
		var out bytes.Buffer
		in := line + "\n" + `{"cmd":"cat a.txt"}` + "\n"
		require.NoError(t, checkStream(context.Background(), streamConfig{wsDir: ws, auditLog: "off"}, strings.NewReader(in), &out))
		answers := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		require.Len(t, answers, 2, "one answer a line: %q", out.String())
		for _, a := range answers {
			require.True(t, json.Valid([]byte(a)), "%q", a)
		}
		var last struct{ Cmd, Decision string }
		require.NoError(t, json.Unmarshal([]byte(answers[1]), &last))
		require.Equal(t, "cat a.txt", last.Cmd)
		require.Equal(t, "allow", string(last.Decision))
	})
}

// FuzzDecodeStreamRequest: a line is read as json.Unmarshal reads it into
// a streamRequest, fields and errors alike.
func FuzzDecodeStreamRequest(f *testing.F) {
	for _, s := range []string{`{"cmd":"ls","cwd":"a b"}`, `{"id":1,"cmd":["git","log"],"meta":{"cwd":"no"}}`, `{"cwd":"\u0041"}`,
		`{"cwd":5,"cmd":"ls"}`, `{"cwd":null}`, `{"Cwd":"x"}`, `{"cmd":null}`, `[]`, `{`, `{"cmd":"a"} x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var want streamRequest
		wantErr := json.Unmarshal(line, &want)
		got, err := decodeStreamRequest(line)
		if wantErr != nil {
			require.EqualError(t, err, wantErr.Error(), "%q", line)
			return
		}
		require.NoError(t, err, "%q", line)
		require.Equal(t, string(want.Cmd), string(got.Cmd), "%q", line)
		require.Equal(t, want.Cmd == nil, got.Cmd == nil, "%q", line)
		require.Equal(t, want.Cwd, got.Cwd, "%q", line)
	})
}
