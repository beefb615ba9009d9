package report

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
