package validators_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/vtexec/vtexec/validators"
	"github.com/vtexec/vtexec/workspace"
)

// A Spec is what vtexec knows of a program's options: which take a value,
// which values are paths, which flags are refused and why. Check parses
// argv as the program's getopt would and confines every path.
func ExampleSpec() {
	spec := &validators.Spec{Name: "show", Operands: validators.ReadPaths, Flags: []validators.Flag{
		{Short: "n", Long: "lines", Arg: validators.Number},
		{Short: "o", Long: "output", Arg: validators.WritePath},
		{Long: "exec", Arg: validators.Text, Forbid: "runs the command it is given"},
	}}
	dir, _ := os.MkdirTemp("", "vtexec-example-")
	defer os.RemoveAll(dir)
	ws, _ := workspace.New(dir)
	for _, argv := range [][]string{
		{"show", "-n5", "notes.txt"},
		{"show", "--lines", "x"},
		{"show", "--exec=id", "notes.txt"},
		{"show", "-o", "/etc/passwd"},
		{"show", "--lin=5"},
	} {
		err := spec.Check(&validators.Call{Argv: argv, WS: ws})
		var f *validators.Finding
		switch {
		case err == nil:
			fmt.Println(argv, "allowed")
		case errors.As(err, &f):
			fmt.Println(argv, f.Code)
		default:
			fmt.Println(argv, err)
		}
	}
	// Output:
	// [show -n5 notes.txt] allowed
	// [show --lines x] bad_usage
	// [show --exec=id notes.txt] forbidden_flag
	// [show -o /etc/passwd] outside_workspace
	// [show --lin=5] unknown_flag
}
