package main

import "testing"

// Two runs that differ only in numbers, however wide, are the same
// observation; a word taken or left is not.
func TestDifferIgnoresNumbersAndTheirPadding(t *testing.T) {
	log := func(ms, file string) run {
		return run{stderr: "flake8.checker            MainProcess " + ms + " INFO     Checking " + file + "\n"}
	}
	var p prober
	for _, c := range []struct {
		x, y   run
		differ bool
	}{
		{log("   95", "1 files"), log("  109", "1 files"), false},
		{log("95", "1 files"), log("95", "1 files"), false},
		{run{exit: 0, stdout: "inode 0x1f"}, run{exit: 0, stdout: "inode 0xa2c"}, false},
		{run{stdout: "Inode: 737         Links: 1\n"}, run{stdout: "Inode: 1024        Links: 1\n"}, false},
		{run{stdout: "Inode: 737 Links: 1\n"}, run{stdout: "Inode: 737 Hard links: 1\n"}, true},
		{log("  95", "1 files"), log("  95", "2 and 1 files"), true},
		{run{exit: 0}, run{exit: 2}, true},
		{run{stdout: "a\n"}, run{stdout: "a\nb\n"}, true},
	} {
		if got := p.differ(c.x, c.y); got != c.differ {
			t.Errorf("differ(%q, %q) = %v", c.x.out(), c.y.out(), got)
		}
	}
}
