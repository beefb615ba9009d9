package report

import (
	"slices"

	"github.com/mcpchaos/mcpchaos/results"
)

// Work proved by a fence alone (issue 25). On stdio a ping is sent at a
// cut + the work grace; a message read after its answer was written after
// the server read that ping, if the server writes in order. The engine
// asks more of it by default: a message must also come a tenth of the
// grace past it by the clock (engine's Plan.workProof), since mcp-go's
// stdio server sends its notifications from a queue of their own, behind
// which its answer to a ping overtakes them. A call whose only evidence
// is within that give or take carries fenced_us; it counts as leftover
// work when the run showed the server writes in order: no call's progress
// came after its own answer, and at least minTightLeads calls' last
// progress came within tightLeadUs of their answer, so a writer that held
// notifications back behind answers would have shown it.

const (
	tightLeadUs   = 2000
	minTightLeads = 5
)

// fencedAgg counts the calls whose only evidence of work past the grace
// is a message read after the work fence's answer, and the calls whose
// last progress came just before their answer.
type fencedAgg struct {
	calls, notDisconnected int
	maxUs                  int64
	ids                    []int64
	tight                  int
}

// add counts r.
func (f *fencedAgg) add(r *results.Record) {
	if p := r.Progress; p != nil && p.LeadUs > 0 && p.LeadUs <= tightLeadUs {
		f.tight++
	}
	if r.FencedUs <= 0 || r.LeftoverUs > 0 {
		return
	}
	f.calls++
	f.maxUs = max(f.maxUs, r.FencedUs)
	if len(f.ids) < maxLeftoverIDs {
		f.ids = append(f.ids, r.ID)
	}
	if r.Outcome != results.Disconnected {
		f.notDisconnected++
	}
}

// writerOrdered reports whether the run showed that the server writes its
// messages in order (see above).
func (a *Aggregator) writerOrdered() bool {
	return a.fenced.tight >= minTightLeads && a.violations["after_response"] == 0
}

// leftovers is the calls with wire evidence of work past the grace: those
// the engine counted, and those the fence alone proved when the server
// writes in order.
type leftovers struct {
	calls, notDisconnected int
	maxUs                  int64
	ids                    []int64
}

func (a *Aggregator) leftovers() leftovers {
	c := &a.cancel
	l := leftovers{c.leftover, c.leftoverNotDisconnected, c.leftoverMaxUs, slices.Clone(c.leftoverIDs)}
	if f := &a.fenced; f.calls > 0 && a.writerOrdered() {
		l.calls += f.calls
		l.notDisconnected += f.notDisconnected
		l.maxUs = max(l.maxUs, f.maxUs)
		for _, id := range f.ids {
			if len(l.ids) < maxLeftoverIDs {
				l.ids = append(l.ids, id)
			}
		}
	}
	return l
}
