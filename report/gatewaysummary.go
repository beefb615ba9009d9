package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
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

// gatewayVerdict: anything the gateway did to a call that a transparent
// one would not is a violation; the evidence names the first calls.
func gatewayVerdict(s *Summary, ev map[string][]string) Verdict {
	g := s.Gateway
	v := Verdict{Area: AreaGateway, Status: StatusPass}
	if g.Executions == 0 {
		v.Status = StatusNotExercised
		v.Evidence = fmt.Sprintf("no target behind the gateway recorded any of our %s", plural(g.Calls, "call"))
		if len(g.Errors) > 0 {
			v.Evidence += "; " + strings.Join(g.Errors, "; ")
		}
		return v
	}
	var facts []string
	for _, k := range g.Misbehaviours() {
		n := k.N
		if n == 0 {
			continue
		}
		v.Status = StatusViolation
		f := fmt.Sprintf("gateway.%s %d (%s)", k.Key, n, k.Noun)
		if e := ev[k.Key]; len(e) > 0 {
			f += ": " + strings.Join(e[:min(len(e), 3)], "; ")
		}
		facts = append(facts, f)
	}
	eras := make([]string, 0, len(g.EraSeen))
	for _, e := range slices.Sorted(maps.Keys(g.EraSeen)) {
		eras = append(eras, fmt.Sprintf("%s %d", e, g.EraSeen[e]))
	}
	base := fmt.Sprintf("%s of %s joined with the truth of %s", plural(g.Executions, "execution"), plural(g.Calls, "call"),
		plural(len(g.Truth), "target"))
	if len(eras) > 0 {
		base += "; eras seen upstream: " + strings.Join(eras, ", ")
	}
	if g.LagMs.Count > 0 {
		base += fmt.Sprintf("; progress lag p50 %.1f ms, p99 %.1f ms, max %.1f ms", g.LagMs.P50, g.LagMs.P99, g.LagMs.Max)
	}
	if g.NotSeen > 0 && !notSeenUnsure(g) {
		base += fmt.Sprintf("; %s not recorded by any target", plural(g.NotSeen, "call"))
	}
	if len(g.Errors) > 0 {
		base += "; " + strings.Join(g.Errors, "; ")
	}
	incomplete := incompleteTruth(g, ev)
	switch {
	case len(facts) > 0 && incomplete != "":
		v.Evidence = strings.Join(facts, "; ") + "; " + incomplete + "; " + base
	case len(facts) > 0:
		v.Evidence = strings.Join(facts, "; ") + "; " + base
	case incomplete != "":
		// Part of the truth is missing: what it does not cover may hide
		// anything the counts look for.
		v.Status = StatusNotObservable
		v.Evidence = incomplete + "; " + base
	default:
		v.Evidence = "the gateway passed every call through as sent: " + base
	}
	return v
}
