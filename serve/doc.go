// Package serve is vtexec's MCP face: the tools shell and shell_check,
// served with the official Go SDK. It translates each tool call into one
// Engine.Check or Engine.Run and the answer back into a structured result
// and a text for the model; it never decides and never starts a process.
// One connection is one vtexec session, so a cd holds for the connection
// that made it and for no other.
package serve
