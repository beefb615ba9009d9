package faults

import (
	"math/rand/v2"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// Cancel cancels a call the era's way, at a time or after the N-th
// progress notification: on 2026 HTTP by closing the call's stream (and,
// with also_notify, by POSTing notifications/cancelled too); on 2025 HTTP
// by POSTing notifications/cancelled with the session; on stdio by writing
// notifications/cancelled.
//
// A correct server stops the tool's work as soon as practical, frees what
// it held, and sends nothing more for the call: no progress and (SHOULD)
// no response. A response or progress after the cancel plus the progress
// grace is counted against the call; work the probes still see after
// orphans.grace is orphaned work.
type Cancel struct {
	perCall
	alsoNotify bool
}

var cancelKind = kind{name: faultkinds.Cancel, perCall: true, timed: true, cuts: true, keys: []scenarios.Field{{Name: "also_notify", Type: scenarios.BoolType(), Doc: "on 2026 HTTP, POST notifications/cancelled too"}},
	build: func(b builder) Fault { return &Cancel{b.perCall(), b.r.Bool("also_notify", false)} }}

func (f *Cancel) Draw(rng *rand.Rand, info Info) (When, bool) { return f.draw(rng, info) }

func (f *Cancel) Act(c Call, info Info) (string, error) {
	var detail string
	switch {
	case info.Transport == "stdio" || !info.Era.Modern():
		detail = "notifications/cancelled sent"
	case f.alsoNotify:
		detail = "stream closed and notifications/cancelled sent"
	default:
		detail = "stream closed"
	}
	return detail, c.Cancel("mcpchaos: cancel fault", f.alsoNotify)
}
