package probes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// ProcessSample is what a process probe saw of the watched trees at one
// moment.
type ProcessSample struct {
	// CPUSeconds is the CPU time (user + system) of every process in the
	// trees, including what their exited children spent once reaped inside
	// the trees (cutime + cstime), so the total does not drop when a
	// worker process exits. It is counted in clock ticks of 1/CLK_TCK s
	// (CLK_TCK is 100 on Linux).
	CPUSeconds float64
	// Threads of the live processes in the trees.
	Threads int
	// Children is the number of live descendants, roots not counted.
	Children int
	// Processes is the number of live processes, roots included.
	Processes int
	// Zombies: processes in the trees that exited and were not yet reaped;
	// they do no work and are not counted in Threads, Children or
	// Processes.
	Zombies int
	// Gone counts the roots that were not running: they ended between the
	// listing of the roots and the reading of /proc, or were never there.
	Gone int
	// Sched is the live threads' run-queue times (schedstat.go).
	Sched RunWait
}

// Process is a probe that watches process trees through /proc.
type Process struct {
	pids func() []int
	proc string // the proc file system; tests point it elsewhere

	mu sync.Mutex
	// seen holds every descendant of a root (roots not included) the
	// probe has seen, by pid, with its start time: a process that is still
	// running after the roots ended is leftover work (Leftover).
	seen map[int]uint64
	// adopter, when not 0, is this process as a child subreaper: its
	// children other than skip() are orphans of the watched trees (see
	// Adopt).
	adopter int
	skip    func() []int
	// exited, when set, adds the CPU of the roots that exited (exited.go).
	exited *exitedRoots
}

// NewProcess returns a probe for the process trees rooted at pids (the
// stdio servers mcpchaos started, or an HTTP server's pid). pids is
// called at every sample, since servers may be restarted.
//
// Descendants are found by parent links: every sample reads /proc/*/stat
// once and walks the ppid field down from the roots. (The kernel's
// /proc/PID/task/TID/children lists are cheaper but documented as
// unreliable while the processes run, and missing where
// CONFIG_PROC_CHILDREN is off.) A process that detached itself
// (double fork, reparented to init or a subreaper) is not seen, unless
// this process is that subreaper (Adopt). Every descendant seen is
// remembered, for Leftover.
func NewProcess(pids func() []int) *Process {
	return &Process{pids: pids, proc: "/proc"}
}

// Name returns "process".
func (p *Process) Name() string { return "process" }

// Sample returns the trees' CPUSeconds, so a process probe can be
// baselined like any other Probe.
func (p *Process) Sample(ctx context.Context) (float64, error) {
	s, err := p.SampleTree(ctx)
	if err != nil {
		return 0, err
	}
	return s.CPUSeconds, nil
}

// SampleTree reads the trees once. A root that is not running is left
// out and listed in Gone (no root at all is an empty sample); a root
// listed twice, or inside another root's tree, counts once.
func (p *Process) SampleTree(ctx context.Context) (ProcessSample, error) {
	var out ProcessSample
	roots := p.pids()
	for _, pid := range roots {
		if pid <= 0 {
			return ProcessSample{}, fmt.Errorf("read process tree: invalid pid %d", pid)
		}
	}
	all, err := scanProc(ctx, p.proc)
	if err != nil {
		return ProcessSample{}, fmt.Errorf("read process tree: %w", err)
	}
	live, gone := roots[:0:0], []int(nil)
	for _, pid := range roots {
		if _, ok := all[pid]; !ok {
			// Not listed: maybe started after the listing; ask once more.
			st, err := readStat(p.proc, pid)
			if errors.Is(err, errNoProcess) {
				out.Gone++
				gone = append(gone, pid)
				continue
			}
			if err != nil {
				return ProcessSample{}, fmt.Errorf("read process tree: %w", err)
			}
			all[pid] = st
		}
		live = append(live, pid)
	}
	children := childrenOf(all)
	roots = append(live, p.adopted(children)...)

	var ticks int64
	var running []int
	seen := make(map[int]bool, len(roots))
	queue := slices.Clone(roots)
	for i := 0; i < len(queue); i++ { // bounded: each pid is queued once
		pid := queue[i]
		if seen[pid] {
			continue // a root listed twice, or inside another root's tree
		}
		seen[pid] = true
		st := all[pid]
		ticks += st.ticks
		if st.state == 'Z' || st.state == 'X' {
			out.Zombies++
		} else {
			out.Processes++
			out.Threads += st.threads
			running = append(running, pid)
			if i >= len(live) { // adopted orphans are the servers' descendants too
				out.Children++
			}
		}
		if i >= len(live) {
			p.remember(st) // a descendant, or an orphan adopted by us
		}
		queue = append(queue, children[pid]...)
	}
	out.CPUSeconds = float64(ticks) / clockTicks()
	if p.exited != nil {
		out.CPUSeconds += p.exited.add(live, gone, all, seen)
	}
	out.Sched = runWait(p.proc, running)
	return out, nil
}
