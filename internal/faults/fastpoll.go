package faults

import (
	"math/rand/v2"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// FastPoll makes a task call poll tasks/get faster than the server asked:
// the client waits only percent of the task's pollIntervalMs between polls
// (docs/long-running.md, tasks). It finds the server's poll limit: the
// spec lets a server rate-limit clients that poll faster than
// pollIntervalMs, so a correct server either serves the polls or refuses
// them (counted in tasks.poll_throttled; the client retries after the
// shortened wait); neither is a violation. A call that gets no task is not
// touched (the fault is recorded as skipped).
type FastPoll struct {
	perCall
	percent int
}

var fastPollKind = kind{name: faultkinds.FastPoll, perCall: true, keys: []scenarios.Field{
	{Name: "percent", Type: scenarios.IntBetweenType(1, 99), Doc: "the share of pollIntervalMs waited between polls, in percent, 1 to 99; default 10"}},
	build: func(b builder) Fault { return &FastPoll{b.perCall(), b.r.IntBetween("percent", 10, 1, 99)} }}

func (f *FastPoll) Draw(rng *rand.Rand, info Info) (When, bool) {
	_, ok := f.draw(rng, info)
	return When{}, ok
}

// PollFactor is the share of the interval to wait, in (0, 1).
func (f *FastPoll) PollFactor() float64 { return float64(f.percent) / 100 }
