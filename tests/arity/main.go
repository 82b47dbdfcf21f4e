// Command arity is the differential flag-arity probe: for every spelling
// of every flag of every validator spec (git subcommand by subcommand), it
// runs the installed program with the flag followed by probe words, in a
// throwaway directory, and observes whether the program took the next
// word as the flag's value; for flags whose value may be attached, whether
// the program reads "--name=VALUE" and "-xVALUE" as a value. The spec must
// agree. It prints counts per program, every disagreement with its
// evidence, and every flag it skips with the reason. It exits 1 on a
// disagreement not listed in known.go, on a listed one that is gone, and
// on an observation it cannot read; 2 when a program is not installed.
//
//	go run ./tests/arity [-v] [-only PROGRAM]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/vtexec/vtexec/validators"
)

// Outcomes of one flag.
const (
	agree        = "agree"
	disagree     = "DISAGREE"
	known        = "known"        // a disagreement listed in knownDisagreements
	unknownFlag  = "unknown"      // the program does not know the spelling
	inconclusive = "INCONCLUSIVE" // no observation could be read
	skipped      = "skipped"
)

type result struct {
	fa      validators.FlagArity
	outcome string
	stolen  bool // git's first pass takes one of git log's options from the value's place
	// canonical: the program splits the value differently from the
	// spec, but vtexec always passes it attached, which it reads alike.
	canonical bool
	says      string // what the spec says
	does      string // what the program did
	evidence  string
}

func (r *result) where() string {
	s := r.fa.Program
	if len(r.fa.Sub) > 0 {
		s += " " + strings.Join(r.fa.Sub, " ")
	}
	return s + " " + r.fa.Name
}

func main() {
	verbose := flag.Bool("v", false, "print every flag's outcome")
	only := flag.String("only", "", "probe only this program")
	flag.Parse()

	flags := validators.FlagArities()
	// Every program a spec names must be installed: a missing one fails.
	missing := map[string]bool{}
	for _, fa := range flags {
		if _, err := exec.LookPath(fa.Program); err != nil {
			missing[fa.Program] = true
		}
	}
	if len(missing) > 0 {
		var names []string
		for n := range missing {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "arity: programs not installed: %s\n", strings.Join(names, " "))
		os.Exit(2)
	}

	root, err := os.MkdirTemp("", "vtexec-arity-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(root)
	lab, err := newLab(root)
	if err != nil {
		fatal(err)
	}

	var todo []validators.FlagArity
	for _, fa := range flags {
		if *only == "" || fa.Program == *only {
			todo = append(todo, fa)
		}
	}
	results := make([]result, len(todo))
	seen := map[string]bool{}
	jobs := make(chan int)
	var wg sync.WaitGroup
	workers := runtime.NumCPU()
	if workers < 2 {
		workers = 2
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			p := lab.prober(w)
			for i := range jobs {
				results[i] = p.probe(todo[i])
			}
		}(w)
	}
	for i := range todo {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	// A listed disagreement is reported but does not fail the run; one
	// that no longer disagrees does, so that the list only shrinks.
	var stale []string
	for i := range results {
		r := &results[i]
		k, note := knownFor(r.fa)
		if k == "" {
			continue
		}
		switch {
		case r.outcome == disagree:
			seen[k] = true
			r.outcome = known
			r.does += " [known: " + note + "]"
		case !strings.HasSuffix(k, "*") && r.outcome != skipped:
			seen[k] = true
			stale = append(stale, k+" ("+r.outcome+")")
		}
	}
	for k := range knownDisagreements {
		if !seen[k] && (*only == "" || strings.HasPrefix(k, *only+" ")) {
			stale = append(stale, k+" (no disagreement under it)")
		}
	}
	sort.Strings(stale)

	code := report(results, *verbose)
	if stolenReport(results, *only == "") {
		code = 1
	}
	if len(stale) > 0 {
		fmt.Printf("\nknownDisagreements entries that no longer disagree (remove them):\n  %s\n", strings.Join(stale, "\n  "))
		code = 1
	}
	os.Exit(code)
}

// report prints the counts and every disagreement and skip, and returns
// the exit code.
func report(results []result, verbose bool) int {
	type counts struct{ probed, agreed, canonical, disagreed, known, unknown, inconclusive, skipped int }
	per := map[string]*counts{}
	var programs []string
	total := &counts{}
	for _, r := range results {
		c := per[r.fa.Program]
		if c == nil {
			c = &counts{}
			per[r.fa.Program] = c
			programs = append(programs, r.fa.Program)
		}
		for _, c := range []*counts{c, total} {
			switch r.outcome {
			case skipped:
				c.skipped++
				continue
			case agree:
				c.agreed++
				if r.canonical {
					c.canonical++
				}
			case disagree:
				c.disagreed++
			case known:
				c.disagreed++
				c.known++
			case unknownFlag:
				c.unknown++
			case inconclusive:
				c.inconclusive++
			}
			c.probed++
		}
	}
	sort.Strings(programs)
	section := func(title, outcome string) {
		n := 0
		for _, r := range results {
			if r.outcome == outcome {
				if n == 0 {
					fmt.Printf("\n%s:\n", title)
				}
				n++
				fmt.Printf("  %s: spec %s; program %s\n", r.where(), r.says, r.does)
				if r.evidence != "" {
					fmt.Printf("      evidence: %s\n", r.evidence)
				}
			}
		}
	}
	if verbose {
		for _, r := range results {
			fmt.Printf("%-12s %s: spec %s; program %s\n", r.outcome, r.where(), r.says, r.does)
		}
	}
	section("Disagreements", disagree)
	section("Known disagreements (listed in tests/arity/known.go for the owner of validators/)", known)
	section("Observations that could not be read", inconclusive)
	section("Spellings the program does not know (it refuses them, so nothing runs)", unknownFlag)
	section("Skipped, with the reason", skipped)

	fmt.Printf("\n%-10s %7s %7s %9s %7s %7s %12s %7s\n", "program", "probed", "agreed", "disagreed", "(known)", "unknown", "inconclusive", "skipped")
	line := func(name string, c *counts) {
		fmt.Printf("%-10s %7d %7d %9d %7d %7d %12d %7d\n", name, c.probed, c.agreed, c.disagreed, c.known, c.unknown, c.inconclusive, c.skipped)
	}
	for _, p := range programs {
		line(p, per[p])
	}
	line("total", total)
	fmt.Printf("flag-arity probe: %d flags probed, %d agreed (%d of them only in the attached form vtexec passes), %d disagreed (%d of them known), %d unknown to the program, %d inconclusive, %d skipped\n",
		total.probed, total.agreed, total.canonical, total.disagreed, total.known, total.unknown, total.inconclusive, total.skipped)
	if total.disagreed > total.known || total.inconclusive > 0 {
		return 1
	}
	return 0
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "arity:", err)
	os.Exit(2)
}

// stolenReport lists the git flags whose value git log's first pass can
// take away, and reports whether they differ from knownStolen (entries
// without such flags count only on a run of every program).
func stolenReport(results []result, full bool) bool {
	per := map[string][]string{}
	for _, r := range results {
		if r.stolen {
			sub := strings.Join(r.fa.Sub, " ")
			per[sub] = append(per[sub], r.fa.Name)
		}
	}
	var subs []string
	for sub := range per {
		subs = append(subs, sub)
	}
	sort.Strings(subs)
	bad := false
	total := 0
	for _, sub := range subs {
		total += len(per[sub])
	}
	fmt.Printf("\nValues git's first pass takes away: %d flags of %d subcommands, whose value, when it is one of git log's own options (--source, --decorate, -L, ...), git reads as that option; the spec reads it as the value\n", total, len(subs))
	for _, sub := range subs {
		note, ok := knownStolen[sub]
		if !ok {
			bad = true
			note = "NOT LISTED in knownStolen"
		}
		fmt.Printf("  git %s (%d): %s\n      %s\n", sub, len(per[sub]), note, strings.Join(per[sub], " "))
	}
	for sub := range knownStolen {
		if len(per[sub]) == 0 && full {
			fmt.Printf("  knownStolen lists git %s, where no value is taken away (remove it)\n", sub)
			bad = true
		}
	}
	return bad
}
