// Package runner executes a checked plan.Plan without a shell. The checker
// approves literal argv lists, so anything that re-parsed them (a shell, a
// PATH lookup, an inherited environment) could run something that was never
// checked; the runner therefore starts exactly plan.Cmd.Program with exactly
// plan.Cmd.Argv, wires pipelines and redirects itself with bash's rules,
// scrubs the environment down to a short allowlist, runs every pipeline in
// its own process group so a timeout or the end of the pipeline can kill
// every descendant, and keeps only a bounded head and tail of the output so
// neither a runaway command nor a stray background process can exhaust
// memory or make a run hang.
package runner
