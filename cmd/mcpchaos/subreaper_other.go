//go:build !linux

package main

// becomeSubreaper: only Linux has child subreapers; elsewhere the run
// finds the servers' leftover processes only among those it saw in their
// trees.
func becomeSubreaper() bool { return false }
