package target

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

// perSecond returns the rate in events per second.
func (r Rate) perSecond() float64 { return float64(r.N) / r.Per.Seconds() }

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
	return nil
}

// bucket is a token bucket: it refills at the configured rate and holds at
// most one second's worth of tokens (at least one). It starts full, so a
// burst of up to that many calls passes at once.
type bucket struct {
	rate  float64 // tokens per second
	burst float64

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

func newBucket(r Rate) *bucket {
	if r.IsZero() {
		return nil
	}
	rate := r.perSecond()
	burst := math.Max(1, math.Floor(rate))
	return &bucket{rate: rate, burst: burst, tokens: burst, last: time.Now()}
}

// take removes one token if there is one. Otherwise it reports how long until
// the next token arrives.
func (b *bucket) take() (ok bool, wait time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = math.Min(b.burst, b.tokens+elapsed*b.rate)
	}
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration(math.Ceil((1 - b.tokens) / b.rate * float64(time.Second)))
}

// retryAfterSeconds turns a wait into a Retry-After value: whole seconds,
// rounded up, at least 1.
func retryAfterSeconds(wait time.Duration) int {
	return max(1, int(math.Ceil(wait.Seconds())))
}
