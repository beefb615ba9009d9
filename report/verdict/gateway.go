package verdict

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// gatewayVerdict: anything the gateway did to a call that a transparent
// one would not is a violation; the evidence names the first calls.
func gatewayVerdict(s *summary.Summary, ev map[string][]string) summary.Verdict {
	g := s.Gateway
	v := summary.Verdict{Area: summary.AreaGateway, Status: summary.StatusPass}
	if g.Executions == 0 {
		v.Status = summary.StatusNotExercised
		v.Evidence = fmt.Sprintf("no target behind the gateway recorded any of our %s", summary.Plural(g.Calls, "call"))
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
		v.Status = summary.StatusViolation
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
	base := fmt.Sprintf("%s of %s joined with the truth of %s", summary.Plural(g.Executions, "execution"), summary.Plural(g.Calls, "call"),
		summary.Plural(len(g.Truth), "target"))
	if len(eras) > 0 {
		base += "; eras seen upstream: " + strings.Join(eras, ", ")
	}
	if g.LagMs.Count > 0 {
		base += fmt.Sprintf("; progress lag p50 %.1f ms, p99 %.1f ms, max %.1f ms", g.LagMs.P50, g.LagMs.P99, g.LagMs.Max)
	}
	if g.NotSeen > 0 && !notSeenUnsure(g) {
		base += fmt.Sprintf("; %s not recorded by any target", summary.Plural(g.NotSeen, "call"))
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
		v.Status = summary.StatusNotObservable
		v.Evidence = incomplete + "; " + base
	default:
		v.Evidence = "the gateway passed every call through as sent: " + base
	}
	return v
}

// incompleteTruth says why the truth covers only part of the calls, or ""
// when it covers them all: calls answered that no target recorded,
// records that never ended, targets never read, or calls not seen while
// reading the truth failed.
func incompleteTruth(g *summary.GatewaySummary, ev map[string][]string) string {
	var why []string
	if g.Unrecorded > 0 {
		why = append(why, fmt.Sprintf("gateway.unrecorded %d (%s)", g.Unrecorded, firstOf(ev["unrecorded"])))
	}
	if g.Unended > 0 {
		why = append(why, fmt.Sprintf("gateway.unended %d (%s)", g.Unended, firstOf(ev["unended"])))
	}
	if g.EchoesAfterTruth > 0 {
		why = append(why, fmt.Sprintf("gateway.echoes_after_truth %d (%s)", g.EchoesAfterTruth, firstOf(ev["echoes_after_truth"])))
	}
	if g.TruthUnread > 0 {
		why = append(why, fmt.Sprintf("gateway.truth_unread %d of %s never answered", g.TruthUnread, summary.Plural(len(g.Truth), "target")))
	}
	if notSeenUnsure(g) {
		why = append(why, fmt.Sprintf("%s not recorded by any target while reading the truth failed", summary.Plural(g.NotSeen, "call")))
	}
	if len(why) == 0 {
		return ""
	}
	return "incomplete truth: " + strings.Join(why, "; ")
}

// firstOf gives the first evidence line of a key, or "".
func firstOf(ev []string) string {
	if len(ev) == 0 {
		return "no example kept"
	}
	s := ev[0]
	if len(ev) > 1 {
		s += "; ..."
	}
	return s
}

// notSeenUnsure: calls no target recorded while reading some target's
// truth failed: they may have run where the reads failed.
func notSeenUnsure(g *summary.GatewaySummary) bool {
	return g.NotSeen > 0 && len(g.Errors) > 0 && g.TruthUnread == 0
}
