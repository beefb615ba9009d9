package summary

// GatewaySummary is the gateway section of the summary: present only when
// the scenario has a gateway section (docs/gateways.md).
type GatewaySummary struct {
	Truth []string `json:"truth"`
	GatewayCounts
	LagMs   GatewayLag     `json:"lag_ms"`
	EraSeen map[string]int `json:"era_seen"`
	Errors  []string       `json:"errors,omitempty"`
	// Evidence is the join's evidence per key (the first calls that
	// counted), for the verdicts; not in the JSON.
	Evidence map[string][]string `json:"-"`
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
	// ProgressAfterLostCancel counts after_cancel notifications on calls
	// whose cancel the targets never learned of (a lost cancel): the
	// gateway's, not the server's; ProgressAfterCancelUnknown those on
	// calls whose records cannot say (report/gatewaylatecancel.go).
	ProgressAfterLostCancel    int `json:"progress_after_lost_cancel"`
	ProgressAfterCancelUnknown int `json:"progress_after_cancel_unknown"`

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

// Add adds in's counts (merged runs).
func (c *GatewayCounts) Add(in GatewayCounts) {
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
	c.ProgressAfterLostCancel += in.ProgressAfterLostCancel
	c.ProgressAfterCancelUnknown += in.ProgressAfterCancelUnknown
	c.Unrecorded += in.Unrecorded
	c.Unended += in.Unended
	c.TruthUnread += in.TruthUnread
	c.EchoesAfterTruth += in.EchoesAfterTruth
	c.Stops.Add(in.Stops)
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
	{"progress_after_lost_cancel", "progress after a cancel the target never learned of", func(g *GatewayCounts) int { return g.ProgressAfterLostCancel }},
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

// GatewayStops is what the targets' records say of the calls we stopped:
// by a cancel (a cancel notification, a timeout, or a 2026-07-28
// disconnect), and by a plain disconnect in a 2025 era (ours, or the end
// of a stdio bridge we cut), which is not a cancel there.
type GatewayStops struct {
	Cancelled    StopCounts `json:"cancelled"`
	Disconnected StopCounts `json:"disconnected"`
}

// StopCounts sorts the calls we stopped by their executions' records.
type StopCounts struct {
	// Stopped: every execution ended without working past the stop
	// (ranOnAfter), or ran to its end before it (the cancel crossed the
	// result).
	Stopped int `json:"stopped"`
	// RanOn: an execution ran to its end more than 100 ms after the stop,
	// or was still working more than 1 s after it.
	RanOn int `json:"ran_on"`
	// Unknown: no target recorded the call, or its record never ended
	// and shows no work past the stop.
	Unknown int `json:"unknown"`
}

// Add adds in's counts.
func (s *StopCounts) Add(in StopCounts) {
	s.Stopped += in.Stopped
	s.RanOn += in.RanOn
	s.Unknown += in.Unknown
}

// Total is every call of the counts.
func (s StopCounts) Total() int { return s.Stopped + s.RanOn + s.Unknown }

// Add adds in's counts.
func (g *GatewayStops) Add(in GatewayStops) {
	g.Cancelled.Add(in.Cancelled)
	g.Disconnected.Add(in.Disconnected)
}
