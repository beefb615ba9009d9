package targetserver

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Rate is N events per Per, written "N/duration": "100/1s", "100/s",
// "5/250ms", "30/1m". The zero Rate means no limit.
type Rate struct {
	N   int
	Per time.Duration
}

// ParseRate parses "N/duration". A bare unit after the slash ("100/s")
// means one of that unit.
func ParseRate(s string) (Rate, error) {
	num, per, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Rate{}, fmt.Errorf("parse rate %q: want N/duration, e.g. 100/1s", s)
	}
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil {
		return Rate{}, fmt.Errorf("parse rate %q: count: %w", s, err)
	}
	per = strings.TrimSpace(per)
	if per != "" && (per[0] < '0' || per[0] > '9') && per[0] != '.' {
		per = "1" + per
	}
	d, err := time.ParseDuration(per)
	if err != nil {
		return Rate{}, fmt.Errorf("parse rate %q: %w", s, err)
	}
	r := Rate{N: n, Per: d}
	if err := r.validate(); err != nil {
		return Rate{}, fmt.Errorf("parse rate %q: %w", s, err)
	}
	return r, nil
}

// IsZero reports whether r is the zero Rate (no limit).
func (r Rate) IsZero() bool { return r.N == 0 && r.Per == 0 }

// String formats r the way ParseRate reads it.
func (r Rate) String() string {
	if r.IsZero() {
		return ""
	}
	return fmt.Sprintf("%d/%s", r.N, r.Per)
}

func (r Rate) validate() error {
	if r.IsZero() {
		return nil
	}
	if r.N <= 0 {
		return errors.New("count must be positive")
	}
	if r.Per <= 0 {
		return errors.New("duration must be positive")
	}
	if r.N > maxLimitCount {
		return fmt.Errorf("count must be at most %d", maxLimitCount)
	}
	return nil
}

// maxLimitCount bounds N in a rate limit of N per period: the limiter
// keeps the time of each of the last N accepted calls.
const maxLimitCount = 1_000_000

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
	return &bucket{per: r.Per, used: make([]time.Time, r.N)}
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
