package summary

import (
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// CutPings is what the pings sent right after each cut over HTTP showed
// (internal/engine/cutping.go): whether the server answered within the grace, so
// that it had the CPU to see the cut in time. Sent only when the process
// probe is the only server-side evidence.
type CutPings struct {
	// Cuts is how many cuts a ping was sent after; Late how many of them
	// had its answer later than cut + grace (less mcpchaos's own stalls),
	// Unanswered (counted in Late) none within 5 s.
	Cuts       int `json:"cuts"`
	Late       int `json:"late"`
	Unanswered int `json:"unanswered"`
	// WorstMs is the longest time from a cut to its ping's answer, less
	// our own stalls; GraceMs the grace it was held against.
	WorstMs float64 `json:"worst_ms"`
	GraceMs float64 `json:"grace_ms"`
}

// WorkFences is how soon a stdio server answered the pings sent at cancel
// + the work grace (internal/engine/fence.go): the resolution of the
// wire's evidence of work after a cut. A message read after a ping's
// answer was written after the server read the ping; one read before it
// may have been written before cancel + grace, so a run-on that ends
// within the lag past the grace shows nothing on the wire.
type WorkFences struct {
	// Unanswered: cuts whose ping had no answer when their record was
	// taken (the call's late window).
	Unanswered int `json:"unanswered"`
	// LagMs: from cancel + the work grace to the answer, over the cuts
	// whose ping was answered.
	LagMs Latency `json:"lag_ms"`
}

// GiveOrTakeMs is results.GiveOrTake of a work grace in milliseconds: how
// far past it a message may come, by the clock, and prove no work from a
// server not seen to write in order.
func GiveOrTakeMs(workGraceMs float64) float64 {
	return results.GiveOrTake(time.Duration(workGraceMs*float64(time.Millisecond))).Seconds() * 1000
}
