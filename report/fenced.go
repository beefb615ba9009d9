package report

import (
	"slices"
	"strings"
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
// notifications back behind answers would have shown it. Files of
// different targets, servers or transports merged into one report
// (report/merge) show nothing of each other's writers: their fenced calls
// are not counted.

const (
	tightLeadUs   = 2000
	minTightLeads = 5
)

// callSet counts calls with evidence of work past the grace: how many,
// how many did not end disconnected, the longest time from a cancel to
// the work, and the first maxLeftoverIDs ids.
type callSet struct {
	n, notDisconnected int
	maxUs              int64
	ids                []int64
}

// add counts call id, seen working us after its cancel.
func (c *callSet) add(id, us int64, disconnected bool) {
	c.n++
	c.maxUs = max(c.maxUs, us)
	if len(c.ids) < maxLeftoverIDs {
		c.ids = append(c.ids, id)
	}
	if !disconnected {
		c.notDisconnected++
	}
}

// plus returns c and o together (ids: c's first, up to maxLeftoverIDs).
func (c callSet) plus(o callSet) callSet {
	out := callSet{n: c.n + o.n, notDisconnected: c.notDisconnected + o.notDisconnected, maxUs: max(c.maxUs, o.maxUs),
		ids: slices.Clone(c.ids)}
	for _, id := range o.ids {
		if len(out.ids) < maxLeftoverIDs {
			out.ids = append(out.ids, id)
		}
	}
	return out
}

// fencedAgg counts the calls a fence alone proved, and the answered calls
// whose last progress came just before their answer.
type fencedAgg struct {
	calls callSet
	tight int
	// mixed: the report merges files of more than one target, server or
	// transport (set by Summary).
	mixed bool
}

// mixedSources reports whether m joins more than one target, server or
// transport (report/merge lists them comma-separated).
func mixedSources(m Meta) bool {
	return strings.Contains(m.Target, ", ") || strings.Contains(m.Server, ", ") || strings.Contains(m.Transport, ", ")
}

// writerOrdered reports whether the run showed that the server writes its
// messages in order (see above).
func (a *Aggregator) writerOrdered() bool {
	return !a.fenced.mixed && a.fenced.tight >= minTightLeads && a.violations["after_response"] == 0
}

// leftovers is the calls with wire evidence of work past the grace: those
// the engine counted, and those the fence alone proved when the server
// writes in order.
func (a *Aggregator) leftovers() callSet {
	var fenced callSet
	if a.writerOrdered() {
		fenced = a.fenced.calls
	}
	return a.cancel.leftover.plus(fenced) // a copy: the summary keeps its ids
}
