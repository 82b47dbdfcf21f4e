// Package vtexec is the one place where an agent's shell command is parsed,
// checked, and run. Every face (the CLI, a JSON-lines stream, later an MCP
// server) translates its protocol into a Request and calls Check or Run;
// nothing runs that did not pass Check, and what runs is exactly the plan
// that Check approved. A command whose words are known only when it runs
// goes through the interpreter, and each command it reaches is checked
// with its final words just before it runs.
package vtexec
