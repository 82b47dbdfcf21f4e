// Package cwdtrack lets a harness that sees only text follow a session's
// working directory and exit code.
//
// After a command's output, vtexec appends one marker line carrying the new
// cwd and the exit code, authenticated with the session's secret token (an
// HMAC, so the token itself never appears). The command never sees the
// token, so it cannot print a marker that verifies; and only the final line
// counts, so replaying an earlier marker inside the output does nothing.
package cwdtrack
