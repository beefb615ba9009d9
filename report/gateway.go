package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/report/summary"
	"github.com/mcpchaos/mcpchaos/results"
)

// Gateway is what the join of the client's calls with the built-in
// targets' truth records found (JoinGateway): a run input, so that
// `mcpchaos report` scores it again and merged runs add up.
type Gateway struct {
	// Truth are the base URLs of the targets read.
	Truth []string `json:"truth"`
	GatewayCounts
	EraSeen map[string]int `json:"era_seen,omitempty"`
	// Lag counts notifications by lag (receive − target send), in bins of
	// LagBinUs.
	Lag []LagBin `json:"lag,omitempty"`
	// Evidence names, per key, the first few calls that counted.
	Evidence map[string][]string `json:"evidence,omitempty"`
	// Errors are failures to read the truth records, and records dropped.
	Errors []string `json:"errors,omitempty"`
}

// LagBin is how many notifications had a lag in [Bin, Bin+1) × LagBinUs.
type LagBin struct {
	Bin int64 `json:"bin"`
	N   int   `json:"n"`
}

// LagBinUs is the width of a lag bin: 100 µs.
const LagBinUs = 100

// Join rules.
const (
	// maxEvidence bounds Gateway.Evidence per key.
	maxEvidence = 10
	// lostCancelMargin: a call that ran to its end later than our cancel
	// plus this, without the target ever learning of the cancel, lost it
	// (before that, the cancel may simply have crossed the result).
	lostCancelMargin = 100 * time.Millisecond
	// heldMinSpan: a call's progress counts as held only when the target
	// sent it over at least this long.
	heldMinSpan = 50 * time.Millisecond
	// misdirectWindow: a call we did not cancel that the target saw
	// cancelled within this after one of our cancels of another call got
	// that cancel.
	misdirectWindow = time.Second
)

// GatewayCall is what the client knew of one marked call.
type GatewayCall struct {
	Marker string
	// RequestID is the id we sent the call with.
	RequestID int64
	// Cancelled is when we cancelled the call (a cancel notification, a
	// timeout, or a 2026 disconnect); zero when we did not.
	Cancelled time.Time
	// Response is when its final response arrived; zero without one.
	Response time.Time
	// RetryAfter: the call was throttled and a Retry-After reached us.
	RetryAfter bool
	// Progress are the notifications received, in order.
	Progress []GatewayProgress
	// Crossed is the marker of another call that the call's answer
	// carried ("" when none or its own).
	Crossed string
	// ReadPaused: we paused reading the call's answer (the stall_read
	// fault), so when its progress arrived says nothing of the gateway.
	ReadPaused bool
	// Disconnected is when our own disconnect ended the call without
	// being a cancel: a plain disconnect in a 2025 era, or the end of a
	// stdio bridge whose stdin we closed while the call was in flight
	// (a cut the call shares). Zero otherwise.
	Disconnected time.Time
	// Answered: a result (not a JSON-RPC error) reached us; Echoed: it
	// carried the call's own marker, so a target ran the call.
	Answered, Echoed bool
	// LateEcho is when an answer echoing the call's marker reached us
	// after its late window (we no longer watched the call, so it is not
	// Answered): a target ran the call to its end. Zero otherwise.
	LateEcho time.Time
	// EchoAfterTruth: the answer echoing the call's marker (LateEcho, or
	// its answer) reached us after the last read of the truth had begun,
	// so the records read may not hold the execution that answered.
	EchoAfterTruth bool
	// AfterCancel is the call's after_cancel progress violations: the
	// notifications that reached us later than our cancel plus the grace
	// (gatewaylatecancel.go).
	AfterCancel int
	// Task: the server made the call a task, so a stop was a tasks/cancel,
	// which a server may let run on (cooperative): not judged in Stops.
	Task bool
}

// GatewayProgress is one notification received.
type GatewayProgress struct {
	Value float64
	At    time.Time
}

// JoinGateway joins our calls with the truth records (already filtered to
// this run's markers) by marker.
func JoinGateway(calls []GatewayCall, truth []results.TruthCall) Gateway {
	g := Gateway{GatewayCounts: GatewayCounts{Calls: len(calls)}, EraSeen: map[string]int{}}
	byMarker, throttled := g.indexTruth(truth)
	ours := make(map[string]*GatewayCall, len(calls))
	var cancels []*GatewayCall // ours that we cancelled, by cancel time
	for i := range calls {
		ours[calls[i].Marker] = &calls[i]
		if !calls[i].Cancelled.IsZero() {
			cancels = append(cancels, &calls[i])
		}
	}
	slices.SortFunc(cancels, func(a, b *GatewayCall) int { return a.Cancelled.Compare(b.Cancelled) })
	g.judgeExecutions(byMarker, ours, cancels)
	lags := map[int64]int{}
	for i := range calls {
		g.judgeCall(&calls[i], byMarker[calls[i].Marker], throttled[calls[i].Marker], lags)
	}
	for _, b := range slices.Sorted(maps.Keys(lags)) {
		g.Lag = append(g.Lag, LagBin{Bin: b, N: lags[b]})
	}
	if len(g.EraSeen) == 0 {
		g.EraSeen = nil
	}
	return g
}

// indexTruth groups the truth records by marker: the executions, counted
// with the eras they spoke, and apart from them the calls the target
// throttled.
func (g *Gateway) indexTruth(truth []results.TruthCall) (byMarker, throttled map[string][]*results.TruthCall) {
	byMarker, throttled = map[string][]*results.TruthCall{}, map[string][]*results.TruthCall{}
	for i := range truth {
		t := &truth[i]
		if t.Throttled {
			throttled[t.Marker] = append(throttled[t.Marker], t)
			continue
		}
		byMarker[t.Marker] = append(byMarker[t.Marker], t)
		g.Executions++
		if t.Era != "" {
			g.EraSeen[t.Era]++
		}
	}
	return byMarker, throttled
}

// judgeExecutions finds, marker by marker, the calls the target ran more
// than once and the cancels it got for calls we never cancelled.
func (g *Gateway) judgeExecutions(byMarker map[string][]*results.TruthCall, ours map[string]*GatewayCall, cancels []*GatewayCall) {
	for _, m := range slices.Sorted(maps.Keys(byMarker)) {
		if ex := byMarker[m]; len(ex) > 1 {
			g.DuplicateExecutions++
			g.note("duplicate_executions", "%s ran %d times (request ids %s)", m, len(ex), requestIDs(ex))
		}
		if c := ours[m]; c == nil || (c.Cancelled.IsZero() && c.Disconnected.IsZero()) {
			t := answering(byMarker[m])
			if by := cancelBefore(cancels, t.Cancelled, m); by != nil {
				g.MisdirectedCancels++
				g.note("misdirected_cancels", "%s (upstream request id %s) was cancelled at the target %s after we cancelled %s (our request id %d), and we never cancelled it",
					m, t.RequestID, msText(t.Cancelled.Sub(by.Cancelled)), by.Marker, by.RequestID)
			}
		}
	}
}

// judgeCall holds one of our calls against its executions (ex) and the
// target's refusals of it (throttled); lags gathers progress lags.
func (g *Gateway) judgeCall(c *GatewayCall, ex, throttled []*results.TruthCall, lags map[int64]int) {
	if c.Crossed != "" {
		g.CrossedResponses++
		g.note("crossed_responses", "%s got the answer of %s", c.Marker, c.Crossed)
	}
	for _, t := range throttled {
		if t.RetryAfterS > 0 && !c.RetryAfter {
			g.RetryAfterLost++
			g.note("retry_after_lost", "%s: the target sent Retry-After %ds, none reached us", c.Marker, t.RetryAfterS)
			break
		}
	}
	if len(ex) == 0 && len(throttled) == 0 {
		g.judgeUnrecorded(c)
	}
	g.judgeEcho(c, ex)
	g.judgeStop(c, ex)
	g.judgeLateProgress(c, ex)
	if len(ex) == 0 {
		return
	}
	if unended(ex) {
		g.Unended++
		g.note("unended", "%s: its record at the target never ended", c.Marker)
	}
	if !c.Cancelled.IsZero() && (c.Response.IsZero() || c.Cancelled.Before(c.Response)) {
		if why := lostCancel(ex, c.Cancelled, c.echoedAt()); why != "" {
			g.LostCancels++
			g.note("lost_cancels", "%s: cancelled by us, %s, which never learned of the cancel", c.Marker, why)
		}
	}
	g.judgeProgress(c, answering(ex), lags)
}

// cancelBefore returns the last of our cancels (of a call other than
// marker) within misdirectWindow before at, or nil.
func cancelBefore(cancels []*GatewayCall, at time.Time, marker string) *GatewayCall {
	if at.IsZero() {
		return nil
	}
	i, _ := slices.BinarySearchFunc(cancels, at, func(c *GatewayCall, t time.Time) int {
		if c.Cancelled.After(t) {
			return 1
		}
		return -1
	})
	for i--; i >= 0 && at.Sub(cancels[i].Cancelled) <= misdirectWindow; i-- {
		if cancels[i].Marker != marker {
			return cancels[i]
		}
	}
	return nil
}

// lostCancel says how the cancel was lost, or "": no execution learned of
// it, and one ran to its end well after it, or sent progress well after
// it and never ended (its process died with the call: the record stops
// there, but the work did not stop for the cancel), or an answer echoing
// the call's marker reached us well after it (lateEcho).
func lostCancel(ex []*results.TruthCall, cancelled, lateEcho time.Time) string {
	why := ""
	for _, t := range ex {
		if !t.Cancelled.IsZero() || !t.StreamClosed.IsZero() {
			return ""
		}
		last := lastWork(t)
		switch {
		case why != "":
		case !t.Completed.IsZero() && t.Completed.After(cancelled.Add(lostCancelMargin)):
			why = "ran to its end at the target " + msText(t.Completed.Sub(cancelled)) + " later"
		case t.Ended.IsZero() && last.After(cancelled.Add(lostCancelMargin)):
			why = "still sent progress at the target " + msText(last.Sub(cancelled)) + " later and its record never ended"
		}
	}
	if why == "" && lateEcho.After(cancelled.Add(lostCancelMargin)) {
		why = "answered " + msText(lateEcho.Sub(cancelled)) + " later with its marker echoed by the target"
	}
	return why
}

// answering picks the execution whose answer we would have got: the last
// one started that completed, else the last one started.
func answering(ex []*results.TruthCall) *results.TruthCall {
	var best *results.TruthCall
	for _, t := range ex {
		if best == nil || (!t.Completed.IsZero() && (best.Completed.IsZero() || t.Started.After(best.Started))) {
			best = t
		}
	}
	return best
}

// judgeProgress matches the notifications the target sent for a call that
// ran to its end and answered us with those we received, by value.
func (g *Gateway) judgeProgress(c *GatewayCall, t *results.TruthCall, lags map[int64]int) {
	if t.Completed.IsZero() || c.Response.IsZero() || !c.Cancelled.IsZero() || c.ReadPaused || len(t.Progress) == 0 {
		return
	}
	used := make([]bool, len(c.Progress))
	lost, reordered := 0, 0
	var sentFirst, sentLast time.Time
	for _, p := range t.Progress {
		if p.At.After(t.Completed) {
			continue // sent after the result: not the gateway's to deliver first
		}
		if sentFirst.IsZero() {
			sentFirst = p.At
		}
		sentLast = p.At
		j := slices.IndexFunc(c.Progress, func(r GatewayProgress) bool { return r.Value == p.Value })
		for j >= 0 && used[j] {
			k := slices.IndexFunc(c.Progress[j+1:], func(r GatewayProgress) bool { return r.Value == p.Value })
			if k < 0 {
				j = -1
				break
			}
			j += 1 + k
		}
		if j < 0 {
			lost++
			continue
		}
		used[j] = true
		if c.Progress[j].At.After(c.Response) {
			reordered++ // sent before the result, received after it
		}
		lag := max(c.Progress[j].At.Sub(p.At), 0)
		lags[lag.Microseconds()/LagBinUs]++
	}
	if reordered > 0 {
		g.ProgressReordered += reordered
		g.note("progress_reordered", "%s: %s the target sent before its result reached us after it", c.Marker, summary.Plural(reordered, "notification"))
	}
	if lost > 0 {
		g.ProgressLost += lost
		g.note("progress_lost", "%s: %s sent upstream never reached us", c.Marker, summary.Plural(lost, "notification"))
	}
	if sentFirst.IsZero() || t.Completed.Sub(sentFirst) < heldMinSpan || len(c.Progress) == 0 {
		return
	}
	if first := c.Progress[0].At; !first.Before(t.Completed) {
		g.ProgressHeld++
		g.note("progress_held", "%s: sent over %s, the first reached us %s after the target finished",
			c.Marker, msText(sentLast.Sub(sentFirst)), msText(first.Sub(t.Completed)))
	}
}

func (g *Gateway) note(key, format string, args ...any) {
	if g.Evidence == nil {
		g.Evidence = map[string][]string{}
	}
	if len(g.Evidence[key]) < maxEvidence {
		g.Evidence[key] = append(g.Evidence[key], fmt.Sprintf(format, args...))
	}
}

func requestIDs(ex []*results.TruthCall) string {
	ids := make([]string, len(ex))
	for i, t := range ex {
		ids[i] = t.RequestID
	}
	return strings.Join(ids, ", ")
}

func msText(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// mergeGateway adds in to o (MergeInputs).
func mergeGateway(o **Gateway, in *Gateway) {
	if in == nil {
		return
	}
	if *o == nil {
		*o = &Gateway{}
	}
	g := *o
	for _, u := range in.Truth {
		if !slices.Contains(g.Truth, u) {
			g.Truth = append(g.Truth, u)
		}
	}
	g.GatewayCounts.Add(in.GatewayCounts)
	for k, n := range in.EraSeen {
		if g.EraSeen == nil {
			g.EraSeen = map[string]int{}
		}
		g.EraSeen[k] += n
	}
	bins := map[int64]int{}
	for _, b := range append(slices.Clone(g.Lag), in.Lag...) {
		bins[b.Bin] += b.N
	}
	g.Lag = nil
	for _, b := range slices.Sorted(maps.Keys(bins)) {
		g.Lag = append(g.Lag, LagBin{Bin: b, N: bins[b]})
	}
	for k, list := range in.Evidence {
		for _, e := range list {
			g.note(k, "%s", e)
		}
	}
	for _, e := range in.Errors {
		if !slices.Contains(g.Errors, e) {
			g.Errors = append(g.Errors, e)
		}
	}
}
