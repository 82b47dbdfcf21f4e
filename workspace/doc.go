// Package workspace confines paths to one directory tree.
//
// A Workspace has a root, fixed when it is made, and a current directory
// inside that root. Resolve turns any path an agent writes into the real path
// the kernel would open: it joins relative paths to the current directory,
// follows every symbolic link itself, and then checks containment component
// by component. Nothing here trusts a string prefix or a cleaned path that
// has not been walked.
package workspace
