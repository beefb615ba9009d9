package report

import "fmt"

// CutPings is what the pings sent right after each cut over HTTP showed
// (engine/cutping.go): whether the server answered within the grace, so
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

// lateCutPings says which cuts the server may not have seen in time, or
// "" when it answered every ping within the grace.
func lateCutPings(p *CutPings) string {
	if p == nil || p.Late == 0 {
		return ""
	}
	return fmt.Sprintf("the server answered the ping sent right after %d of %s only after cut + grace "+
		"(the slowest in %s, grace %s): it may not have had the CPU to see those cuts in time",
		p.Late, plural(p.Cuts, "cut"), fmtMs(p.WorstMs), fmtMs(p.GraceMs))
}

// mergeCutPings adds in's pings to o's (MergeInputs): separate servers'
// cuts add; the shards of one shared server send none.
func mergeCutPings(o *Orphans, in Orphans) {
	x := in.CutPings
	if x == nil {
		return
	}
	if o.CutPings == nil {
		o.CutPings = &CutPings{GraceMs: x.GraceMs}
	}
	p := o.CutPings
	p.Cuts += x.Cuts
	p.Late += x.Late
	p.Unanswered += x.Unanswered
	p.WorstMs = max(p.WorstMs, x.WorstMs)
	p.GraceMs = max(p.GraceMs, x.GraceMs)
}
