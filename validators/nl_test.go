package validators

import "testing"

func TestNl(t *testing.T) {
	runCases(t, []vcase{
		{args("nl", "a.txt"), ""},
		{args("nl"), ""},
		{args("nl", "-"), ""},
		{args("nl", "-ba", "a.txt", "b.txt"), ""},
		{args("nl", "-b", "pTODO", "-n", "rz", "-w", "3", "-s", ": ", "a.txt"), ""},
		{args("nl", "--body-numbering=t", "--header-numbering=n", "--footer-numbering=a", "a.txt"), ""},
		{args("nl", "-v", "0", "-i", "2", "-l", "2", "-p", "-d", "::", "a.txt"), ""},
		{args("nl", "--starting-line-number=-5", "--number-width=8", "a.txt"), ""},
		{args("nl", "--help"), ""},

		{args("nl", "/etc/passwd"), "outside_workspace"},
		{args("nl", "a.txt", "../x"), "outside_workspace"},
		{args("nl", "out/passwd"), "outside_workspace"},
		{args("nl", "-x", "a.txt"), CodeUnknownFlag},
		{args("nl", "--body=a", "a.txt"), CodeUnknownFlag},
		{args("nl", "-w", "wide", "a.txt"), CodeBadUsage},
		{args("nl", "-b"), CodeBadUsage},
		{args("nl", "-p=1", "a.txt"), CodeUnknownFlag},
	})
}
