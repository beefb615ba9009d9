package probes

import (
	"context"
	"fmt"
	"slices"
)

// How a process probe finds the work a watched process leaves behind: it
// remembers every descendant it sees (with its start time, so a reused
// pid is not mistaken for it), and, when this process is a child
// subreaper (Adopt), takes its children other than the watched ones for
// orphans of the trees — a child that started its own session and whose
// parent exited is reparented to the nearest subreaper, not to init.

// maxSeen bounds the descendants a probe remembers.
const maxSeen = 1 << 14

// Adopt tells the probe that pid (this process) is a child subreaper: its
// children other than those skip returns (the processes it started
// itself, such as the watched roots) are orphans of the watched trees, and
// are watched with them.
func (p *Process) Adopt(pid int, skip func() []int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.adopter, p.skip = pid, skip
}

// adopted returns the adopter's children that are orphans of the trees.
func (p *Process) adopted(children map[int][]int) []int {
	p.mu.Lock()
	adopter, skip := p.adopter, p.skip
	p.mu.Unlock()
	if adopter == 0 {
		return nil
	}
	own := skip()
	var out []int
	for _, pid := range children[adopter] {
		if !slices.Contains(own, pid) {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out
}

// remember notes a descendant of the trees.
func (p *Process) remember(st procStat) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen == nil {
		p.seen = make(map[int]uint64)
	}
	if _, ok := p.seen[st.pid]; ok || len(p.seen) < maxSeen {
		p.seen[st.pid] = st.start
	}
}

// childrenOf maps each pid to its children.
func childrenOf(all map[int]procStat) map[int][]int {
	children := make(map[int][]int, len(all))
	for pid, st := range all {
		children[st.ppid] = append(children[st.ppid], pid)
	}
	return children
}

// LeftoverProcess is a process the watched trees left running.
type LeftoverProcess struct {
	PID, PPID int
	Command   string // the comm field: the executable's name, at most 15 bytes
}

func (l LeftoverProcess) String() string { return fmt.Sprintf("process %d (%s)", l.PID, l.Command) }

// Leftover returns the processes still running that the probe saw in the
// trees (the same process: same pid and start time), and their
// descendants, and the orphans this process adopted (see Adopt); zombies
// are not running. Call it once the roots have ended: until then their
// own descendants are not left over.
func (p *Process) Leftover(ctx context.Context) ([]LeftoverProcess, error) {
	all, err := scanProc(ctx, p.proc)
	if err != nil {
		return nil, fmt.Errorf("look for leftover processes: %w", err)
	}
	children := childrenOf(all)
	p.mu.Lock()
	var queue []int
	for pid, start := range p.seen {
		if st, ok := all[pid]; ok && st.start == start {
			queue = append(queue, pid)
		}
	}
	p.mu.Unlock()
	queue = append(queue, p.adopted(children)...)
	slices.Sort(queue)
	var out []LeftoverProcess
	done := make(map[int]bool, len(queue))
	for i := 0; i < len(queue); i++ { // bounded: each pid is taken once
		pid := queue[i]
		if done[pid] {
			continue
		}
		done[pid] = true
		st := all[pid]
		if st.state != 'Z' && st.state != 'X' {
			out = append(out, LeftoverProcess{PID: pid, PPID: st.ppid, Command: st.comm})
		}
		queue = append(queue, children[pid]...)
	}
	return out, nil
}
