package pathrules

import "strings"

// Within reports whether the slash-separated path p is root or below
// it, comparing whole components (empty ones skipped), without regard
// to case if fold; rel is p relative to root ("" for root itself).
func Within(root, p string, fold bool) (rel string, ok bool) {
	rp, pp := components(root), components(p)
	if len(pp) < len(rp) {
		return "", false
	}
	for i := range rp {
		if rp[i] != pp[i] && !(fold && strings.EqualFold(rp[i], pp[i])) {
			return "", false
		}
	}
	return strings.Join(pp[len(rp):], "/"), true
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
