//go:build !linux

package engine

// newWaker returns nil: without a timerfd the runtime timer alone wakes
// the deadline driver.
func newWaker() waker { return nil }
