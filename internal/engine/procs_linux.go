package engine

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU returns the CPU time (user and system) this process has used.
func processCPU() (time.Duration, bool) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
