package report

import (
	"maps"
	"slices"
)

// gatewaySummary builds the summary section from the run input.
func gatewaySummary(g *Gateway) *GatewaySummary {
	if g == nil {
		return nil
	}
	s := &GatewaySummary{Truth: slices.Clone(g.Truth), GatewayCounts: g.GatewayCounts,
		EraSeen: maps.Clone(g.EraSeen), Errors: slices.Clone(g.Errors), Evidence: g.Evidence}
	if s.Truth == nil {
		s.Truth = []string{}
	}
	if s.EraSeen == nil {
		s.EraSeen = map[string]int{}
	}
	s.LagMs = lagSummary(g.Lag)
	return s
}

// lagSummary reads percentiles off the bins (each bin's upper edge).
func lagSummary(bins []LagBin) GatewayLag {
	var l GatewayLag
	for _, b := range bins {
		l.Count += b.N
	}
	if l.Count == 0 {
		return l
	}
	edge := func(b LagBin) float64 { return round3(float64((b.Bin+1)*LagBinUs) / 1000) }
	at := func(q float64) float64 {
		want := int(q*float64(l.Count) + 0.999999)
		seen := 0
		for _, b := range bins {
			seen += b.N
			if seen >= max(want, 1) {
				return edge(b)
			}
		}
		return edge(bins[len(bins)-1])
	}
	l.P50, l.P99, l.Max = at(0.50), at(0.99), edge(bins[len(bins)-1])
	return l
}
