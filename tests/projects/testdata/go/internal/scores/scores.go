// Package scores reads "name score" lines.
package scores

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Score is one named value.
type Score struct {
	Name  string
	Value float64
}

// Parse reads one "name score" pair a line. Blank lines and lines
// starting with # are skipped.
func Parse(r io.Reader) ([]Score, error) {
	var out []Score
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("line %d: want \"name score\", got %q", n, line)
		}
		v, err := strconv.ParseFloat(fields[1], 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, Score{Name: fields[0], Value: v})
	}
	return out, sc.Err()
}

// Best returns the n highest scores, highest first, ties by name.
func Best(list []Score, n int) []Score {
	s := append([]Score(nil), list...)
	sort.Slice(s, func(i, j int) bool {
		if s[i].Value != s[j].Value {
			return s[i].Value > s[j].Value
		}
		return s[i].Name < s[j].Name
	})
	if n < len(s) {
		s = s[:n]
	}
	return s
}
