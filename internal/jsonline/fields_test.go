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
