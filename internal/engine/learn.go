package engine

import (
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// What the run learns from finished calls for the faults of later ones:
// each tool's typical duration (cancel_race acts before it) and recently
// finished request ids (cancel_unknown names them).

// learn feeds the typical-duration estimate and the finished ids.
func (r *runner) learn(cs *callState) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.call != nil {
		r.finished.add(cs.call.ID())
	}
	if cs.final != finalNone && cs.stopOutcome == "" && !cs.sent.IsZero() {
		r.typical.add(cs.spec.Tool, cs.responseAt.Sub(cs.sent))
	}
}

// typicals learns each tool's typical duration from calls that were not
// cancelled: the median of the last 32.
type typicals struct {
	mu sync.Mutex
	m  map[string][]time.Duration
}

func (t *typicals) add(tool string, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[string][]time.Duration)
	}
	s := append(t.m[tool], d)
	if len(s) > 32 {
		s = s[1:]
	}
	t.m[tool] = s
}

func (t *typicals) get(tool string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := slices.Clone(t.m[tool])
	if len(s) < 3 {
		return 0
	}
	slices.Sort(s)
	return s[len(s)/2]
}

// finished remembers recently finished request ids for cancel_unknown.
type finished struct {
	mu  sync.Mutex
	ids [256]int64
	n   int
}

func (f *finished) add(id int64) {
	f.mu.Lock()
	f.ids[f.n%len(f.ids)] = id
	f.n++
	f.mu.Unlock()
}

// Finished implements faults.IDs.
func (f *finished) Finished(rng *rand.Rand) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		return 0
	}
	return f.ids[rng.IntN(min(f.n, len(f.ids)))]
}
