package audit

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jsonLine is what encoding/json's Encoder, HTML escaping off, writes
// for r: the bytes encode must write.
func jsonLine(t testing.TB, r Record) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(r))
	return buf.Bytes()
}

func TestEncodeIsEncodingJSONs(t *testing.T) {
	code := 0
	neg := -3
	strange := "a\"b\\c\x00\x01\b\f\n\r\t\x1b\x7f<>&\u2028\u2029\xff\xfe\xc3é😀\ufffd\xed\xa0\x80 end"
	for _, r := range []Record{
		{Kind: KindDecision},
		{Kind: KindExecution, Session: "s1", Cwd: "/w", Command: "ls -la", Argv: [][]string{{"ls", "-la"}}, Decision: "allow", ExitCode: &code, DurationMs: 3, BytesOut: 10},
		{Kind: strange, Session: strange, Cwd: strange, Command: strange, Argv: [][]string{{strange, ""}, {}, nil}, Decision: strange,
			Code: strange, Reason: strange, Hint: strange, Rule: strange, RuleFile: strange, Approval: strange,
			ExitCode: &neg, DurationMs: -1, BytesOut: 1 << 40, Truncated: true, TimedOut: true},
		{Time: time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("x", 3600)), Kind: KindSession, Argv: [][]string{}},
	} {
		if r.Time.IsZero() {
			r.Time = time.Date(2026, 11, 26, 22, 0, 0, 123456789, time.UTC)
		}
		got, err := encode(r)
		require.NoError(t, err)
		r.Time = r.Time.UTC()
		assert.Equal(t, string(jsonLine(t, r)), string(got))
	}
	_, err := encode(Record{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
	assert.Error(t, err, "a year json cannot write")
}

func FuzzEncodeIsEncodingJSONs(f *testing.F) {
	f.Add("ls", "a\x00\n\u2028\xff", int64(0), 3, true)
	f.Add("", "", int64(-1), 0, false)
	f.Fuzz(func(t *testing.T, a, b string, n int64, exit int, flag bool) {
		r := Record{Time: time.Unix(n%(1<<35), n%1e9).UTC(), Kind: a, Session: b, Cwd: a + b, Command: b, Argv: [][]string{{a, b}, {b}},
			Decision: a, Code: b, Reason: a, Hint: b, Rule: a, RuleFile: b, Approval: a, DurationMs: n, BytesOut: -n, Truncated: flag, TimedOut: !flag}
		if flag {
			r.ExitCode = &exit
		}
		got, err := encode(r)
		if y := r.Time.Year(); y < 0 || y > 9999 {
			if err == nil {
				t.Fatalf("encoded a year json refuses: %s", got)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := jsonLine(t, r); !bytes.Equal(got, want) {
			t.Fatalf("encode:\n%s\nencoding/json:\n%s", got, want)
		}
	})
}
