//go:build !linux

package engine

import "time"

// processCPU reports false: the adapter of GOMAXPROCS (procs.go) is for
// Linux, where it was measured.
func processCPU() (time.Duration, bool) { return 0, false }
