package confine

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every field of a Spec, and of what it holds, changes the text a box is
// named by: a field the text left out would let two different boxes
// share one kept namespace.
func TestSpecKeyHasEveryField(t *testing.T) {
	seen := map[string]string{string(specText(Spec{}, ModeRequired)): "the zero spec"}
	add := func(what string, s Spec) {
		t.Helper()
		text := string(specText(s, ModeRequired))
		if other, ok := seen[text]; ok {
			t.Errorf("%s and %s have the same key %q", what, other, text)
		}
		seen[text] = what
	}
	typ := reflect.TypeOf(Spec{})
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		var s Spec
		v := reflect.ValueOf(&s).Elem().Field(i)
		switch {
		case f.Type.Kind() == reflect.Bool:
			v.SetBool(true)
			add(f.Name, s)
		case f.Type == reflect.TypeOf([]string{}):
			v.Set(reflect.ValueOf([]string{"/x"}))
			add(f.Name, s)
		case f.Type == reflect.TypeOf([]Protected{}):
			pt := reflect.TypeOf(Protected{})
			for j := 0; j < pt.NumField(); j++ {
				var p Protected
				pv := reflect.ValueOf(&p).Elem()
				pv.FieldByName("Path").SetString("/p")
				switch pt.Field(j).Type.Kind() {
				case reflect.Bool:
					pv.Field(j).SetBool(true)
				case reflect.String:
					pv.Field(j).SetString("/q")
				default:
					t.Fatalf("Protected.%s: no value to try for a %s", pt.Field(j).Name, pt.Field(j).Type)
				}
				v.Set(reflect.ValueOf([]Protected{p}))
				add(f.Name+"."+pt.Field(j).Name, s)
			}
		case f.Type == reflect.TypeOf(Limits{}):
			lt := f.Type
			for j := 0; j < lt.NumField(); j++ {
				var l Limits
				if lt.Field(j).Type.Kind() != reflect.Uint64 {
					t.Fatalf("Limits.%s: no value to try for a %s", lt.Field(j).Name, lt.Field(j).Type)
				}
				reflect.ValueOf(&l).Elem().Field(j).SetUint(1)
				v.Set(reflect.ValueOf(l))
				add(f.Name+"."+lt.Field(j).Name, s)
			}
		default:
			t.Fatalf("Spec.%s: no value to try for a %s: add it to specText and here", f.Name, f.Type)
		}
	}
	// Lists and strings have their lengths: no two specs read alike.
	add("two read-write", Spec{ReadWrite: []string{"/a", "/b"}})
	add("one read-write, one read-only", Spec{ReadWrite: []string{"/a"}, ReadOnly: []string{"/b"}})
	add("a joined name", Spec{ReadWrite: []string{"/a[2:/b"}})
	assert.NotEqual(t, specText(Spec{}, ModeRequired), specText(Spec{}, ModeBestEffort), "the mode")
}
