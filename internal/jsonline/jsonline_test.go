package jsonline

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestExact(t *testing.T) {
	for _, ok := range []string{`{"a":"b"}`, `{"a":"\ud83d\ude00"}`, `{"a":"é"}`, `{"a":"\\ud800"}`, `{"a":"\u00e9"}`} {
		assert.NoError(t, Exact([]byte(ok)), ok)
	}
	for _, bad := range []string{"{\"a\":\"\xff\"}", `{"a":"\ud800"}`, `{"a":"\udc00"}`, `{"a":"\ud800\ud800"}`, `{"a":"\ud800x"}`, `{"\ud800":1}`} {
		assert.ErrorIs(t, Exact([]byte(bad)), ErrNotExact, bad)
	}
}
