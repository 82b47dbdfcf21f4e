// Package vspawn starts a program in new namespaces, a new user
// namespace among them, without copying the caller's memory.
//
// Go's os/exec cannot share the caller's memory with a child that makes
// a user namespace (the parent must write the child's id maps while the
// child waits), so it copies the caller's page tables, and every page
// the caller writes until the child has executed its program costs a
// fault: the clone and exec of a helper took 1.6 ms of a fresh
// unprivileged `vtexec run` (phase marks), which this makes 0.6–1.3 ms
// faster. Here the child shares the caller's memory and the
// calling thread sleeps until the child has executed its program or
// failed (as vfork does); the child writes its own id maps (a process
// may map its own user and group ids in a user namespace it made, once
// setgroups is denied), sets its process group and parent-death signal,
// places its descriptors, restores the signal dispositions and mask a
// program should start with, and executes the program. It runs a list of
// system calls the caller prepared, in Go assembly on a stack of its own,
// and nothing else: no Go code runs in it. It can also enter a user and a
// network namespace made earlier and clone again inside them, so that
// programs share those and still get the others of their own.
package vspawn
