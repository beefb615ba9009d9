package probes

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
}

// Process is a probe that watches process trees through /proc.
type Process struct {
	pids func() []int
	proc string // the proc file system; tests point it elsewhere
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
// (double fork, reparented to init or a subreaper) is not seen.
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

// SampleTree reads the trees once. A root that does not exist is an
// error; a root listed twice, or inside another root's tree, counts once.
func (p *Process) SampleTree(ctx context.Context) (ProcessSample, error) {
	roots := p.pids()
	if len(roots) == 0 {
		return ProcessSample{}, errors.New("read process tree: no pids to watch")
	}
	for _, pid := range roots {
		if pid <= 0 {
			return ProcessSample{}, fmt.Errorf("read process tree: invalid pid %d", pid)
		}
	}
	all, err := scanProc(ctx, p.proc)
	if err != nil {
		return ProcessSample{}, fmt.Errorf("read process tree: %w", err)
	}
	for _, pid := range roots {
		if _, ok := all[pid]; ok {
			continue
		}
		// Not listed: maybe started after the listing; ask once more.
		st, err := readStat(p.proc, pid)
		if errors.Is(err, errNoProcess) {
			return ProcessSample{}, fmt.Errorf("read process tree: process %d not found in %s", pid, p.proc)
		}
		if err != nil {
			return ProcessSample{}, fmt.Errorf("read process tree: %w", err)
		}
		all[pid] = st
	}
	children := make(map[int][]int, len(all))
	for pid, st := range all {
		children[st.ppid] = append(children[st.ppid], pid)
	}

	var ticks int64
	var out ProcessSample
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
			if i >= len(roots) {
				out.Children++
			}
		}
		queue = append(queue, children[pid]...)
	}
	out.CPUSeconds = float64(ticks) / clockTicks()
	return out, nil
}
