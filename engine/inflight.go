package engine

import "sync"

// inflightSet holds the calls in flight, so the end of the run can cancel
// them.
type inflightSet struct {
	mu sync.Mutex
	m  map[*callState]struct{}
}

func (s *inflightSet) add(cs *callState) {
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[*callState]struct{})
	}
	s.m[cs] = struct{}{}
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

func (s *inflightSet) all() []*callState {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*callState, 0, len(s.m))
	for cs := range s.m {
		out = append(out, cs)
	}
	return out
}
