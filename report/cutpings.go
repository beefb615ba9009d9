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

// mergeContention adds in's projection to o's (MergeInputs): separate
// servers' cuts and windows add, the work per cut and the share done are
// the largest of their medians, and the worst is the latest to end.
func mergeContention(o *Orphans, in Orphans) {
	x := in.Contention
	if x == nil {
		return
	}
	if o.Contention == nil {
		c := *x
		o.Contention = &c
		return
	}
	c := o.Contention
	c.Cuts += x.Cuts
	c.Unpaced += x.Unpaced
	c.Contended += x.Contended
	c.PastGrace += x.PastGrace
	c.Blind += x.Blind
	c.PastGraceBlind += x.PastGraceBlind
	c.Windows += x.Windows
	c.WorkPerCutS = max(c.WorkPerCutS, x.WorkPerCutS)
	c.DoneShare = max(c.DoneShare, x.DoneShare)
	c.GraceMs = max(c.GraceMs, x.GraceMs)
	if x.WorstEndMs > c.WorstEndMs {
		c.WorstAtMs, c.WorstEndMs, c.WorstLeft, c.WorstPaceMs, c.QuickPaceMs = x.WorstAtMs, x.WorstEndMs, x.WorstLeft, x.WorstPaceMs, x.QuickPaceMs
	}
}
