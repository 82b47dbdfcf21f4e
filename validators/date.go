package validators

import "strings"

// date (GNU coreutils 9.1) prints the time. It also sets the system clock,
// with -s/--set or with an operand that does not start with "+"
// (MMDDhhmm[[CC]YY][.ss]): both are refused. -r/--reference stats a file
// and -f/--file reads date strings from one: both are confined.
//
// A date string may start with TZ="ZONE", and glibc then opens ZONE as a
// time zone file: relative to /usr/share/zoneinfo, or as given when it is
// absolute, ".." included. Only TZif data is ever used from it, but the
// open reaches outside the workspace (and can block on a FIFO), so a -d
// string whose zone is a path (leading "/", or "..") is refused; a zone
// name such as TZ="Europe/Paris" is fine. Lines read with -f are read
// when date runs and are not checked: the most they can do is the same
// open, and only TZif files change the output.

const dateSetsClock = "sets the system clock"

var dateSpec = &Spec{Name: "date", Doc: "[+FORMAT]: a format only; an operand without '+' sets the clock and is refused", Operands: dateOperands, Flags: []Flag{
	{Short: "d", Long: "date", Arg: Text}, {Long: "debug"},
	{Short: "f", Long: "file", Arg: ReadPath},
	{Short: "I", Long: "iso-8601", Arg: Text, Optional: true}, {Long: "resolution"},
	{Short: "R", Long: "rfc-email"}, {Long: "rfc-822"}, {Long: "rfc-2822"},
	{Long: "rfc-3339", Arg: Text},
	{Short: "r", Long: "reference", Arg: ReadPath},
	{Short: "u", Long: "utc"}, {Long: "universal"}, {Long: "uct"},
	{Long: "help"}, {Long: "version"},
	{Short: "s", Long: "set", Arg: Text, Forbid: dateSetsClock},
}}

func registerDate() { registerSpec(dateSpec) }

// dateOperands allows one +FORMAT operand and checks the -d strings.
func dateOperands(c *Call, a *Args) error {
	for _, d := range a.Values("d") {
		if zone, ok := dateTZPath(d); ok {
			return refuse(CodeForbiddenFlag, `name a zone (TZ="Europe/Paris"), not a file`,
				"date -d: TZ=%q makes date open that file as a time zone, outside the zone database", zone)
		}
	}
	ops := a.Operands
	if len(ops) > 1 {
		return refuse(CodeBadUsage, "give one +FORMAT operand", "date: extra operand %q", ops[1])
	}
	if len(ops) == 1 && !strings.HasPrefix(ops[0], "+") {
		return refuse(CodeForbiddenFlag, "start the format with '+', e.g. date +%Y-%m-%d; to show another time use -d",
			"date %s: an operand without a leading '+' %s", ops[0], dateSetsClock)
	}
	return nil
}

// dateTZPath returns the zone of a date string that starts with TZ="...",
// as parse_datetime reads it, when the zone names a file by path rather
// than a zone in the database. A backslash escapes the next character, and
// an unterminated zone runs to the end of the string.
func dateTZPath(s string) (string, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	rest, ok := strings.CutPrefix(s, `TZ="`)
	if !ok {
		return "", false
	}
	var zone strings.Builder
	for i := 0; i < len(rest) && rest[i] != '"'; i++ {
		if rest[i] == '\\' {
			i++ // an escaped character: \\ or \"
			if i == len(rest) {
				break
			}
		}
		zone.WriteByte(rest[i])
	}
	z := zone.String()
	name := strings.TrimPrefix(z, ":")
	return z, strings.HasPrefix(name, "/") || strings.Contains(name, "..")
}
