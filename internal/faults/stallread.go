package faults

import (
	"math/rand/v2"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// StallRead stops reading a call's stream for `for`, then resumes: on HTTP
// the call's own connection stops being read, so the server's writes back
// up into the socket buffers; on stdio the shared stdout pipe stops being
// read, which stalls every call on that process.
//
// A correct server copes without harm: it blocks or buffers and carries on
// when reading resumes, or it drops progress notifications (allowed: they
// are informational) but still delivers the final response; it never
// crashes, and calls on other streams are unaffected (HTTP). The engine
// records how the call fared after the stall: buffered (a burst of events
// at resume), dropped (progress values skipped), errored (the stream or
// call failed) or blocked (the server simply waited).
type StallRead struct {
	perCall
	stall time.Duration
}

var stallReadKind = kind{name: faultkinds.StallRead, perCall: true, timed: true, keys: []scenarios.Field{{Name: "for", Type: scenarios.DurationType(), Required: true, Doc: "how long to stop reading"}},
	build: func(b builder) Fault {
		return &StallRead{b.perCall(), b.r.Positive("for", 0).Std()}
	}}

func (f *StallRead) Draw(rng *rand.Rand, info Info) (When, bool) { return f.draw(rng, info) }

func (f *StallRead) Act(c Call, _ Info) (string, error) {
	c.Pause()
	time.AfterFunc(f.stall, c.Resume)
	return "paused reading for " + f.stall.String(), nil
}
