package testutil

import (
	"testing"
	"time"
)

// WaitLong bounds every wait in the tests. It is generous on purpose: the
// suite must pass on a busy 2-core machine, so nothing asserts that a thing
// happens quickly, only that it happens. (15 s was too short for a 1 GiB
// message through a pipe under -race beside two busy loops.)
const WaitLong = time.Minute

// pollEvery is how often Poll checks its condition.
const pollEvery = 5 * time.Millisecond

// Poll reports whether cond holds within d, checking it now and then every
// few milliseconds on the calling goroutine.
func Poll(d time.Duration, cond func() bool) bool {
	if cond() {
		return true
	}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		select {
		case <-deadline.C:
			return cond()
		case <-tick.C:
			if cond() {
				return true
			}
		}
	}
}

// Eventually fails the test when cond does not hold within WaitLong. what
// says what the test waited for.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !Poll(WaitLong, cond) {
		t.Fatalf("timed out after %v waiting for %s", WaitLong, what)
	}
}

// Receive waits up to WaitLong for a value on ch and fails the test
// otherwise.
func Receive[T any](t testing.TB, what string, ch <-chan T) T {
	t.Helper()
	timer := time.NewTimer(WaitLong)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("timed out after %v waiting for %s", WaitLong, what)
		var zero T
		return zero
	}
}
