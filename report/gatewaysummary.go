package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// AreaGateway is the verdict area of a run with a gateway section: what
// the gateway between us and the built-in targets did to the calls.
const AreaGateway = "gateway"

// GatewaySummary is the gateway section of the summary: present only when
// the scenario has a gateway section (docs/gateways.md).
type GatewaySummary struct {
	Truth []string `json:"truth"`
	GatewayCounts
	LagMs   GatewayLag     `json:"lag_ms"`
	EraSeen map[string]int `json:"era_seen"`
	Errors  []string       `json:"errors,omitempty"`
	// evidence is the join's evidence per key, for the verdicts.
	evidence map[string][]string
}

// GatewayCounts are the counts of the join, the same in the run input
// (Gateway) and in the summary (GatewaySummary).
type GatewayCounts struct {
	// Calls is how many of our calls carried a marker; Executions how many
	// executions of them the targets recorded; NotSeen how many of our
	// calls no target recorded (the gateway never delivered them, or the
	// records were lost: see Gateway.Errors).
	Calls      int `json:"calls"`
	Executions int `json:"executions"`
	NotSeen    int `json:"not_seen"`

	DuplicateExecutions int `json:"duplicate_executions"`
	MisdirectedCancels  int `json:"misdirected_cancels"`
	LostCancels         int `json:"lost_cancels"`
	CrossedResponses    int `json:"crossed_responses"`
	ProgressHeld        int `json:"progress_held"`
	ProgressLost        int `json:"progress_lost"`
	RetryAfterLost      int `json:"retry_after_lost"`
	// ProgressReordered counts notifications a target sent before a
	// call's result that reached us after it (a gateway that moved them to
	// another stream, or held them): the progress verdict does not blame
	// the server for them (gatewayprogress.go).
	ProgressReordered int `json:"progress_reordered"`

	// Unrecorded is how many of our calls got a result though no target
	// recorded them (not counted in NotSeen); Unended how many had an
	// execution whose record never ended; TruthUnread how many targets
	// never answered a read of their records. Any of them makes the truth
	// incomplete (gatewaytruth.go).
	Unrecorded  int `json:"unrecorded"`
	Unended     int `json:"unended"`
	TruthUnread int `json:"truth_unread"`
	// EchoesAfterTruth is how many of our calls got an answer echoing
	// their marker after the last read of the truth had begun: the
	// records read may not hold the execution that answered. It makes the
	// truth incomplete too.
	EchoesAfterTruth int `json:"echoes_after_truth"`
	// Stops is what the records say of the calls we stopped.
	Stops GatewayStops `json:"stops"`
}

// add adds in's counts (merged runs).
func (c *GatewayCounts) add(in GatewayCounts) {
	c.Calls += in.Calls
	c.Executions += in.Executions
	c.NotSeen += in.NotSeen
	c.DuplicateExecutions += in.DuplicateExecutions
	c.MisdirectedCancels += in.MisdirectedCancels
	c.LostCancels += in.LostCancels
	c.CrossedResponses += in.CrossedResponses
	c.ProgressHeld += in.ProgressHeld
	c.ProgressLost += in.ProgressLost
	c.RetryAfterLost += in.RetryAfterLost
	c.ProgressReordered += in.ProgressReordered
	c.Unrecorded += in.Unrecorded
	c.Unended += in.Unended
	c.TruthUnread += in.TruthUnread
	c.EchoesAfterTruth += in.EchoesAfterTruth
	c.Stops.add(in.Stops)
}

// GatewayLag is the lag of progress notifications through the gateway:
// receive time minus the target's send time, in ms, to the bin width
// above (0.1 ms).
type GatewayLag struct {
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
	Count int     `json:"count"`
}

// gatewaySummary builds the summary section from the run input.
func gatewaySummary(g *Gateway) *GatewaySummary {
	if g == nil {
		return nil
	}
	s := &GatewaySummary{Truth: slices.Clone(g.Truth), GatewayCounts: g.GatewayCounts,
		EraSeen: maps.Clone(g.EraSeen), Errors: slices.Clone(g.Errors), evidence: g.Evidence}
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

// gatewayKeys names each counted misbehaviour with its summary key.
var gatewayKeys = []struct {
	key  string
	noun string
	n    func(*GatewayCounts) int
}{
	{"duplicate_executions", "call executed more than once", func(g *GatewayCounts) int { return g.DuplicateExecutions }},
	{"misdirected_cancels", "call stopped by a cancel meant for another", func(g *GatewayCounts) int { return g.MisdirectedCancels }},
	{"lost_cancels", "cancel the target never learned of", func(g *GatewayCounts) int { return g.LostCancels }},
	{"crossed_responses", "answer that belonged to another call", func(g *GatewayCounts) int { return g.CrossedResponses }},
	{"progress_held", "call whose progress came only with its result", func(g *GatewayCounts) int { return g.ProgressHeld }},
	{"progress_lost", "progress notification sent and never received", func(g *GatewayCounts) int { return g.ProgressLost }},
	{"retry_after_lost", "Retry-After sent and never received", func(g *GatewayCounts) int { return g.RetryAfterLost }},
	{"progress_reordered", "progress sent before the result, received after it", func(g *GatewayCounts) int { return g.ProgressReordered }},
}

// GatewayMisbehaviour is one counted misbehaviour of the gateway: its
// summary key (under gateway.), what one of it is, and its count.
type GatewayMisbehaviour struct {
	Key, Noun string
	N         int
}

// Misbehaviours returns the counted misbehaviours, in report order.
func (c *GatewayCounts) Misbehaviours() []GatewayMisbehaviour {
	out := make([]GatewayMisbehaviour, len(gatewayKeys))
	for i, k := range gatewayKeys {
		out[i] = GatewayMisbehaviour{Key: k.key, Noun: k.noun, N: k.n(c)}
	}
	return out
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
	for _, k := range gatewayKeys {
		n := k.n(&g.GatewayCounts)
		if n == 0 {
			continue
		}
		v.Status = StatusViolation
		f := fmt.Sprintf("gateway.%s %d (%s)", k.key, n, k.noun)
		if e := ev[k.key]; len(e) > 0 {
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
