// Package inherited keeps what a process inherited to itself: the
// descriptors its caller left open across exec (a harness's pipe, the
// script a shell runs) are not passed on to the programs it starts. Go
// opens every descriptor of its own close-on-exec, but leaves the ones a
// process starts with as they are, and os/exec passes those on.
package inherited
