package engine

import "sync"

// inflightSet holds the calls in flight, so the end of the run can cancel
// them, and the most that were in flight at once since the last look.
type inflightSet struct {
	mu   sync.Mutex
	m    map[*callState]struct{}
	peak int
}

func (s *inflightSet) add(cs *callState) {
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[*callState]struct{})
	}
	s.m[cs] = struct{}{}
	s.peak = max(s.peak, len(s.m))
	s.mu.Unlock()
}

func (s *inflightSet) remove(cs *callState) {
	s.mu.Lock()
	delete(s.m, cs)
	s.mu.Unlock()
}

func (s *inflightSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// markPeak starts a window: the peak is the count now.
func (s *inflightSet) markPeak() {
	s.mu.Lock()
	s.peak = len(s.m)
	s.mu.Unlock()
}

// peakSince returns the most calls in flight at once since markPeak.
func (s *inflightSet) peakSince() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
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
