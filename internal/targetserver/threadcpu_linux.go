//go:build linux

package targetserver

import (
	"syscall"
	"time"
)

// rusageThread is RUSAGE_THREAD: getrusage for the calling thread only.
const rusageThread = 1

// threadCPU returns the CPU time (user and system) of the calling OS
// thread; false when it cannot be read. The caller must hold the thread
// (runtime.LockOSThread) between two readings for their difference to mean
// anything.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
