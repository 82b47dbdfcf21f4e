package jsonline

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twoFields is what Fields is compared with: encoding/json's own reading
// of the same two keys.
type twoFields struct {
	Cmd json.RawMessage `json:"cmd"`
	Cwd json.RawMessage `json:"cwd"`
}

var fieldsSeeds = []string{
	`{"cmd":"ls","cwd":"sub"}`,
	` { "id" : "x-1" , "cmd" : [ "git" , "status" ] , "tags":{"a":[1,{"cmd":"no"}]}, "n": -1.5e3, "t": true, "z": null } `,
	`{"cmd":"a\"b\\c","cwd":null}`,
	`{"cmd":"first","cmd":"last"}`,
	`{"CMD":"folded"}`,
	`{"c\u006dd":"escaped key"}`,
	`{"cwd":5}`,
	`{"cwd":5,"cwd":"ls"}`,
	`{}`,
	`[]`,
	`"cmd"`,
	`{"cmd":"ls"`,
	`{"cmd":"ls"} {}`,
	`{"a":"}\"]","cmd":"x"}`,
	`{"":1,"cmd":{}}`,
	`{"cmd":"ls", }`,
	`{"cmd":01}`,
	`{"cmd":-0.5E+2,"cwd":[true,false,null,{"k":[]}]}`,
	`{"cmd":"tab\there"}`,
	"{\"cmd\":\"raw\ttab\"}",
	`{"cmd":"\x"}`,
	`{"cmd":"\u12"}`,
	`{"cmd":tru}`,
	`{"cmd":[1,]}`,
	`{"cmd":"ls"}x`,
	`{"cmd" "ls"}`,
	`{"cmd":"\ud83d\ude00 \u00e9\/\b\f\n\r"}`,
}

func TestFieldsReadsAsEncodingJSONDoes(t *testing.T) {
	for _, s := range fieldsSeeds {
		checkFields(t, []byte(s))
	}
	// Each kind of line the fast path hands back.
	for _, s := range []string{`{"CMD":"folded"}`, `{"c\u006dd":"x"}`, `[]`, `{"cmd":"ls"`, `{"cmd":"ls"} {}`, `{"cwd":5,"cwd":"ls"}`} {
		_, ok := Fields([]byte(s), "cmd", "cwd")
		assert.False(t, ok, s)
	}
	// What the fast path takes: any nesting of valid values.
	for _, s := range []string{`{"x":{"cmd":1},"cmd":["b"],"n":-1.5e3,"t":[true,null,false]}`, `{"cmd":"a\"b\\c\u00e9"}`, ` {} `} {
		_, ok := Fields([]byte(s), "cmd", "cwd")
		assert.True(t, ok, s)
	}
	vals, ok := Fields([]byte(`{"x":{"cmd":1},"cmd":["b"]}`), "cmd", "cwd")
	require.True(t, ok)
	assert.Equal(t, `["b"]`, string(vals[0]))
	assert.Nil(t, vals[1])
}

func FuzzFields(f *testing.F) {
	for _, s := range fieldsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFields(t, data) })
}

// checkFields fails when Fields decides data other than encoding/json.
func checkFields(t *testing.T, data []byte) {
	t.Helper()
	vals, ok := Fields(data, "cmd", "cwd")
	if !ok {
		return
	}
	var want twoFields
	require.NoError(t, json.Unmarshal(data, &want), "Fields took %q, which encoding/json refuses", data)
	assert.Equal(t, string(want.Cmd), string(vals[0]), "cmd of %q", data)
	assert.Equal(t, string(want.Cwd), string(vals[1]), "cwd of %q", data)
	assert.Equal(t, want.Cmd == nil, vals[0] == nil, "cmd present in %q", data)
}

var stringSeeds = []string{
	`"ls -la"`, `"a\"b\\c"`, `"\u00e9\/\b\f\n\r\t"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00\ud800"`,
	`"\ud800\u0041"`, `"\u0000"`, "\"\xff\"", `"é"`, `"\ufffd"`, `""`,
}

func TestStringDecodesAsEncodingJSONDoes(t *testing.T) {
	for _, s := range stringSeeds {
		checkString(t, []byte(s))
	}
	// What it hands back: decoding would replace these.
	for _, s := range []string{`"\ud800"`, `"\udc00\ud800"`, `"\ud800\u0041"`, "\"\xff\""} {
		_, ok := String([]byte(s))
		assert.False(t, ok, s)
	}
	got, ok := String([]byte(`"a\"b\\c\u00e9\ud83d\ude00\n"`))
	require.True(t, ok)
	assert.Equal(t, "a\"b\\cé😀\n", got)
}

func FuzzString(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkString(t, data) })
}

// checkString fails when String decodes a JSON string Fields would
// return other than encoding/json does.
func checkString(t *testing.T, raw []byte) {
	t.Helper()
	if end, ok := scanString(raw, 0); len(raw) == 0 || raw[0] != '"' || !ok || end != len(raw) {
		return // not a string Fields returns
	}
	got, ok := String(raw)
	if !ok {
		return
	}
	var want string
	require.NoError(t, json.Unmarshal(raw, &want), "%q", raw)
	assert.Equal(t, want, got, "%q", raw)
}
