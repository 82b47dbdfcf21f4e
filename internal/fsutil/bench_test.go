package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkWriteAtomicBesideManyFiles writes one state file in a
// directory that holds others (a sessions directory after a year of
// conversations holds tens of thousands): see the ns/op of each size.
func BenchmarkWriteAtomicBesideManyFiles(b *testing.B) {
	for _, n := range []int{0, 1000, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := b.TempDir()
			for i := range n {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%d.json", i)), nil, 0o600); err != nil {
					b.Fatal(err)
				}
			}
			path := filepath.Join(dir, "this.json")
			for b.Loop() {
				if err := WriteAtomicNoSync(path, []byte("{}\n"), 0o600); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
