package targetserver

import (
	"math"
	"sync"
	"time"
)

// bucket limits calls to at most N in any window of the rate's period — a
// token bucket of N tokens in which each token comes back exactly one
// period after it was used. Unlike a bucket that refills continuously and
// starts full, it never lets more than N through in any period (so the
// ground truth is exact: "at most 100 calls in any second"), and it does
// not throttle calls that merely arrive unevenly below the limit.
type bucket struct {
	per  time.Duration
	mu   sync.Mutex
	used []time.Time // when each of the last N accepted calls came, a ring
	next int         // the oldest entry
	n    int         // entries in use
}

func newBucket(r Rate) *bucket {
	if r.IsZero() {
		return nil
	}
	return &bucket{per: r.Per, used: make([]time.Time, r.Freq)}
}

// take accepts a call if fewer than N were accepted in the last period.
// Otherwise it reports how long until the oldest of them leaves the
// window.
func (b *bucket) take() (ok bool, wait time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	for b.n > 0 && now.Sub(b.used[b.next]) >= b.per {
		b.next = (b.next + 1) % len(b.used)
		b.n--
	}
	if b.n < len(b.used) {
		b.used[(b.next+b.n)%len(b.used)] = now
		b.n++
		return true, 0
	}
	return false, b.per - now.Sub(b.used[b.next])
}

// retryAfterSeconds turns a wait into a Retry-After value: whole seconds,
// rounded up, at least 1.
func retryAfterSeconds(wait time.Duration) int {
	return max(1, int(math.Ceil(wait.Seconds())))
}
