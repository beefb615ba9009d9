//go:build !linux

package engine

import "context"

// newTickSleeper returns a runtime timer: the timerfd sleeper
// (ticksleep_linux.go) is for Linux.
func newTickSleeper(context.Context) sleeper { return newTimerSleeper() }
