// Command demo summarizes a file of scores: one "name score" pair a line.
package main

import (
	"flag"
	"fmt"
	"os"

	"example.com/demo/internal/scores"
	"example.com/demo/internal/stats"
)

func main() {
	top := flag.Int("top", 3, "how many of the best scores to list")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: demo [-top N] FILE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *top); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(path string, top int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	list, err := scores.Parse(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	values := make([]float64, len(list))
	for i, s := range list {
		values[i] = s.Value
	}
	mean, err := stats.Mean(values)
	if err != nil {
		return err
	}
	median, _ := stats.Median(values)
	fmt.Printf("%d scores, mean %.2f, median %.2f\n", len(list), mean, median)
	for i, s := range scores.Best(list, top) {
		fmt.Printf("%2d. %-10s %6.1f\n", i+1, s.Name, s.Value)
	}
	return nil
}
