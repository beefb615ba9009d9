//go:build !linux

package main

// shortSlices does nothing where the scheduler has no custom slices.
func shortSlices() {}
