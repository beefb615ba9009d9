package engine

import (
	"sync"
	"time"
)

// inflightSet holds the calls in flight, so the end of the run can cancel
// them, the most that were in flight at once since the last look, and
// which tools had calls in flight since then (toolcpu.go).
type inflightSet struct {
	mu   sync.Mutex
	m    map[*callState]struct{}
	peak int
	// byTool counts the calls in flight by tool; seen holds the tools that
	// had a call in flight at some moment since the last markPeak. Both
	// nil until trackTools (a process probe, several tools).
	byTool map[string]int
	seen   map[string]struct{}
	// tasks holds the tasks from their tasks/cancel until their end is
	// seen (taskrunon.go), whether their call is still in m (the watch
	// over the grace) or not (followed on); tasksOut counts those no
	// longer in m, which the peak adds: live on the client's side, so that
	// a counting probe's leaked work does not count work the spec allows,
	// but in no stop's sweep. tasksBegun counts every one since the run
	// began. A task whose end was never seen stays until the run's end.
	tasks      map[*callState]struct{}
	tasksOut   int
	tasksBegun int
	// live is the calls' live time summed (the count in flight integrated
	// over time) up to changed, when the count last changed
	// (contention.go); kept only once timeLive was called (a process
	// probe), so that a call's start and end read no clock otherwise.
	live    time.Duration
	changed time.Time
	timed   bool
}

// timeLive starts keeping the calls' live time.
func (s *inflightSet) timeLive() {
	s.mu.Lock()
	s.timed = true
	s.mu.Unlock()
}

// integrate adds the time since the count last changed. s.mu is held.
func (s *inflightSet) integrate(now time.Time) {
	if !s.changed.IsZero() {
		s.live += time.Duration(len(s.m)) * now.Sub(s.changed)
	}
	s.changed = now
}

// liveTime returns the calls' live time summed, up to now.
func (s *inflightSet) liveTime(now time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.integrate(now)
	return s.live
}

// trackTools starts keeping which tools have calls in flight.
func (s *inflightSet) trackTools() {
	s.mu.Lock()
	s.byTool = make(map[string]int)
	s.seen = make(map[string]struct{})
	s.mu.Unlock()
}

// tracking reports whether trackTools was called.
func (s *inflightSet) tracking() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byTool != nil
}

func (s *inflightSet) add(cs *callState) {
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[*callState]struct{})
	}
	if s.timed {
		s.integrate(time.Now())
	}
	s.m[cs] = struct{}{}
	s.peak = max(s.peak, len(s.m)+s.tasksOut)
	if s.byTool != nil {
		t := cs.toolName()
		s.byTool[t]++
		s.seen[t] = struct{}{}
	}
	s.mu.Unlock()
}

func (s *inflightSet) remove(cs *callState) {
	s.mu.Lock()
	if _, ok := s.m[cs]; ok {
		if s.timed {
			s.integrate(time.Now())
		}
		delete(s.m, cs)
		if s.byTool != nil {
			s.byTool[cs.toolName()]--
		}
		if _, on := s.tasks[cs]; on {
			s.tasksOut++
		}
	}
	s.mu.Unlock()
}

func (s *inflightSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// markPeak starts a window: the peak is the count now. It returns the
// one tool whose calls were the only ones in flight since the last
// markPeak ("" when no call or calls of several tools were), and starts
// that record afresh with the tools in flight now.
func (s *inflightSet) markPeak() (only string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.peak = len(s.m) + s.tasksOut
	if s.byTool == nil {
		return ""
	}
	if len(s.seen) == 1 {
		for t := range s.seen {
			only = t
		}
	}
	clear(s.seen)
	for t, n := range s.byTool {
		if n > 0 {
			s.seen[t] = struct{}{}
		}
	}
	return only
}

// taskCancelled counts a task from its tasks/cancel until taskEnded.
func (s *inflightSet) taskCancelled(cs *callState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tasks == nil {
		s.tasks = make(map[*callState]struct{})
	}
	if _, on := s.tasks[cs]; on {
		return
	}
	s.tasks[cs] = struct{}{}
	s.tasksBegun++
	if _, in := s.m[cs]; !in {
		s.tasksOut++
		s.peak = max(s.peak, len(s.m)+s.tasksOut)
	}
}

// taskEnded ends a taskCancelled: the task's end was seen.
func (s *inflightSet) taskEnded(cs *callState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, on := s.tasks[cs]; !on {
		return
	}
	delete(s.tasks, cs)
	if _, in := s.m[cs]; !in {
		s.tasksOut--
	}
}

// watching returns the tasks between their tasks/cancel and the end of
// its grace's watch: their calls are still in flight.
func (s *inflightSet) watching() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tasks) - s.tasksOut
}

// runningOn returns the tasks between their tasks/cancel and their end
// seen now, and how many there have been so far.
func (s *inflightSet) runningOn() (now, begun int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tasks), s.tasksBegun
}

// peakSince returns the most calls in flight at once since markPeak.
func (s *inflightSet) peakSince() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

// uncut is how many calls in flight have no cut out yet: not stopped, or
// stopped with the cancel still going out, or a retry round still being
// sent. A call whose cut is out may stay in flight after it (before
// 2026-07-28, over HTTP, its stream stays open for what the server still
// sends).
func (s *inflightSet) uncut() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for cs := range s.m {
		if !cs.cutOut.Load() || cs.sending.Load() {
			n++
		}
	}
	return n
}

func (s *inflightSet) all() []*callState {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*callState, 0, len(s.m))
	for cs := range s.m {
		out = append(out, cs)
	}
	return out
}

// toolName is the call's tool ("" without a spec: tests' bare calls).
func (cs *callState) toolName() string {
	if cs.spec == nil {
		return ""
	}
	return cs.spec.Tool
}
