package targetserver

import (
	"sync"
	"time"
)

// lockout puts a penalty on a client that does not wait as told (the
// rate_limit_lockout knob): a call refused before the previous refusal's
// wait was over locks every limited call out for d, each refused with
// the time left as its wait. Calls during a lock-out do not lengthen it.
type lockout struct {
	inner limiter
	d     time.Duration

	mu          sync.Mutex
	notBefore   time.Time // the previous refusal's wait ends
	lockedUntil time.Time
}

func (l *lockout) take() (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if now.Before(l.lockedUntil) {
		return false, l.lockedUntil.Sub(now)
	}
	ok, wait := l.inner.take()
	switch {
	case ok:
		return true, 0
	case now.Before(l.notBefore):
		l.lockedUntil = now.Add(l.d)
		return false, l.d
	}
	l.notBefore = now.Add(wait)
	return false, wait
}
