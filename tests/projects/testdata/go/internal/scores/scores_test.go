package scores

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	in := "# comment\nann 7.5\n\nbob 9\n"
	got, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Score{{"ann", 7.5}, {"bob", 9}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse = %v, want %v", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"ann\n", "ann x\n", "ann 1 2\n"} {
		if _, err := Parse(strings.NewReader(in)); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", in)
		}
	}
}

func TestBest(t *testing.T) {
	list := []Score{{"c", 1}, {"a", 5}, {"b", 5}, {"d", 3}}
	got := Best(list, 3)
	want := []Score{{"a", 5}, {"b", 5}, {"d", 3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Best = %v, want %v", got, want)
	}
	if len(Best(list, 10)) != 4 {
		t.Errorf("Best(list, 10) should return every score")
	}
}
