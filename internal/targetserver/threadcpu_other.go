//go:build !linux

package targetserver

import "time"

// threadCPU cannot read a thread's CPU time here: the leftover CPU counter
// falls back to the wall time of each slice of burning.
func threadCPU() (time.Duration, bool) { return 0, false }
