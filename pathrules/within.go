package pathrules

import "strings"

// Within reports whether the slash-separated path p is root or below
// it, comparing whole components (empty ones skipped), without regard
// to case if fold; rel is p relative to root ("" for root itself).
// It allocates only for a rel that has empty components to skip.
func Within(root, p string, fold bool) (rel string, ok bool) {
	i, j := 0, 0
	for {
		var rc, pc string
		if rc, i = next(root, i); rc == "" {
			break
		}
		if pc, j = next(p, j); pc == "" {
			return "", false
		}
		if rc != pc && !(fold && strings.EqualFold(rc, pc)) {
			return "", false
		}
	}
	rest := strings.TrimLeft(p[j:], "/")
	if !strings.Contains(rest, "//") && !strings.HasSuffix(rest, "/") {
		return rest, true
	}
	return strings.Join(components(rest), "/"), true
}

// next returns the component of p at or after i (skipping slashes), ""
// if none is left, and where the one after it starts.
func next(p string, i int) (string, int) {
	for i < len(p) && p[i] == '/' {
		i++
	}
	start := i
	for i < len(p) && p[i] != '/' {
		i++
	}
	return p[start:i], i
}

func components(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}
