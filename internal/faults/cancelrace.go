package faults

import (
	"math/rand/v2"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// CancelRace cancels a call around the moment it completes: at the instant
// its final response arrives (at: response), or before_end before the
// tool's typical duration (learned from calls that were not cancelled;
// until one is known, it acts at the response). The cancel is sent even
// when the response won the race: on stdio that is a cancel for a finished
// request, on 2026 HTTP closing a stream that already ended is a no-op.
//
// A correct server handles both orders gracefully: it ignores a cancel for
// a request it already answered, never crashes or wedges, and answers the
// calls that follow normally (the run's later outcomes show it).
type CancelRace struct {
	perCall
	beforeEnd time.Duration // 0: at the response
}

var cancelRaceKind = kind{name: faultkinds.CancelRace, perCall: true, keys: []scenarios.Field{
	{Name: "at", Type: scenarios.EnumType("response"), Doc: "cancel at the moment the response arrives"},
	{Name: "before_end", Type: scenarios.DurationType(), Doc: "cancel this long before the call's typical end"}},
	build: func(b builder) Fault {
		f := &CancelRace{perCall: b.perCall()}
		switch b.r.ExactlyOne("at", "before_end") {
		case "at":
			b.r.Enum("at", "", "response")
		case "before_end":
			f.beforeEnd = b.r.Positive("before_end", 0).Std()
		}
		return f
	}}

func (f *CancelRace) Draw(rng *rand.Rand, info Info) (When, bool) {
	_, ok := f.draw(rng, info)
	if f.beforeEnd <= 0 || info.Typical <= 0 {
		return When{AtResponse: true, EvenAfterResponse: true}, ok
	}
	return When{After: max(info.Typical-f.beforeEnd, 0), EvenAfterResponse: true}, ok
}

func (f *CancelRace) Act(c Call, info Info) (string, error) {
	detail := "cancel at the response"
	if f.beforeEnd > 0 && info.Typical > 0 {
		detail = "cancel " + f.beforeEnd.String() + " before the typical end (" + info.Typical.Round(time.Millisecond).String() + ")"
	}
	return detail, c.CancelAnyway("mcpchaos: cancel race")
}
