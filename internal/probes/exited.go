package probes

import "sync"

// The CPU of servers that exited. A stdio server replaced after a
// disconnect leaves the probe's roots; read from the running servers'
// trees alone, the sum then dropped to the new server's, and the CPU of a
// load in which a server was replaced near its end read as a tenth of what
// the servers' logs say they computed (issue 25's ramp). So a probe built
// WithExited adds the CPU of every root that exited and was reaped, from
// its wait status, and while a root has left /proc but its exit is not yet
// known (a wait that also waits for a child holding the server's stderr)
// the root's own CPU at its last live reading stands in for it.

// exitedRoots is what WithExited adds to a sample.
type exitedRoots struct {
	cpu  func(read func(pid int) bool) float64
	mu   sync.Mutex
	last map[int]int64 // each root's own clock ticks at its last live reading
}

// WithExited has the probe add to CPUSeconds the CPU-seconds of the roots
// that exited and were reaped: f sums them from their wait status, leaving
// out the pids read says this sample counted already (read live, or stood
// in for by their last reading).
func (p *Process) WithExited(f func(read func(pid int) bool) float64) *Process {
	p.exited = &exitedRoots{cpu: f, last: map[int]int64{}}
	return p
}

// add returns the CPU-seconds to add to a sample whose live roots were
// live, whose listed roots not in /proc were gone, with all the processes
// read and seen the pids counted.
func (e *exitedRoots) add(live, gone []int, all map[int]procStat, seen map[int]bool) float64 {
	e.mu.Lock()
	var stand int64
	stoodIn := make(map[int]bool, len(gone))
	for _, pid := range gone {
		if t, ok := e.last[pid]; ok {
			stand += t
			stoodIn[pid] = true
		}
	}
	next := make(map[int]int64, len(live)+len(stoodIn))
	for _, pid := range live {
		next[pid] = all[pid].ticks
	}
	for pid := range stoodIn {
		next[pid] = e.last[pid]
	}
	e.last = next // bounded by the roots listed
	e.mu.Unlock()
	return float64(stand)/clockTicks() + e.cpu(func(pid int) bool { return seen[pid] || stoodIn[pid] })
}
