package main

import "golang.org/x/sys/unix"

// becomeSubreaper makes this process a child subreaper
// (prctl PR_SET_CHILD_SUBREAPER): an orphan among the descendants of the
// stdio servers it starts — a child in a session of its own whose parent
// exited, or a double-forked daemon — is reparented to it rather than to
// init, so the run can watch it and kill it at the end. It reports whether
// that worked.
func becomeSubreaper() bool {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
}
