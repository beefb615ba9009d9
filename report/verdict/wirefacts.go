package verdict

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// leftoverCallsFact says which calls the wire showed working after their
// cancel, and how long after it: the ids can be held against the server's
// own log.
func leftoverCallsFact(c summary.Cancellation) string {
	their := "their"
	if c.LeftoverCalls == 1 {
		their = "its"
	}
	f := summary.Plural(c.LeftoverCalls, "call") + " seen working after " + their + " cancel"
	var in []string
	if len(c.LeftoverIDs) > 0 {
		in = append(in, "ids "+joinIDs(c.LeftoverIDs, c.LeftoverCalls))
		if c.LeftoverMaxMs > 0 {
			in = append(in, "up to "+summary.FormatMs(c.LeftoverMaxMs)+" after the cancel")
		}
	}
	if c.WriterOrdered && c.FencedCalls > 0 {
		in = append(in, fmt.Sprintf("%d by a message read after the answer to a ping sent at cancel + grace, "+
			"from a server seen to write in order", c.FencedCalls))
	}
	if len(in) == 0 {
		return f
	}
	return f + " (" + strings.Join(in, "; ") + ")"
}

// wireNotes says what came after cancels that is no evidence of work:
// messages the server may have written before it saw the cancel, and its
// answers to the cancel.
func wireNotes(c summary.Cancellation) []string {
	var out []string
	if c.LateQueued > 0 {
		out = append(out, fmt.Sprintf("%s later than cancel + grace but read before the answer to a ping sent then "+
			"(the server may have written them before it read that ping: not counted)", summary.Plural(c.LateQueued, "message")))
	}
	if c.LateDrained > 0 {
		out = append(out, fmt.Sprintf("%s later than cancel + grace but read after the call's own answer, "+
			"which came within it (produced before that answer, a write queue draining: not counted)",
			summary.Plural(c.LateDrained, "progress notification")))
	}
	if c.FencedCalls > 0 && !c.WriterOrdered {
		out = append(out, fmt.Sprintf("%s with a message past cancel + grace, within a tenth of it, read after the answer "+
			"to a ping sent then (not counted: the run did not show the server writes its messages in order)",
			summary.Plural(c.FencedCalls, "call")))
	}
	if c.CancelAnswers > 0 {
		out = append(out, fmt.Sprintf("%s to the cancel (the server said the call was cancelled or stopped)",
			summary.Plural(c.CancelAnswers, "answer")))
	}
	return out
}

// joinIDs lists request ids, with ", ..." when they are fewer than total.
func joinIDs(list []int64, total int) string {
	ids := make([]string, len(list))
	for i, id := range list {
		ids[i] = strconv.FormatInt(id, 10)
	}
	out := strings.Join(ids, ", ")
	if len(list) < total {
		out += ", ..."
	}
	return out
}

// fenceNote says, in a pass over stdio, how far past the grace a run-on
// must go before the wire can show it: only once the server has read the
// ping sent at cancel + grace (its answer's lag), and for a server not seen
// to write in order, not within a tenth of the grace either. "" without
// stdio cancels, or with a log probe that matched, which sees each call
// end whatever the wire shows (a count probe samples the calls in flight
// every 100 ms, and weighs run-ons during the load as one total).
func fenceNote(c summary.Cancellation) string {
	f := c.WorkFences
	if f == nil || (c.Log != nil && c.Log.Matched > 0) {
		return ""
	}
	var b strings.Builder
	b.WriteString("; on stdio, a cut call's work past cancel + grace shows on the wire only once the server has read a ping sent then: ")
	if f.LagMs.Count == 0 {
		fmt.Fprintf(&b, "none of the %d was answered in time, so only an answer read long after its cancel (a stale answer) could show a run-on", f.Unanswered)
		return b.String()
	}
	fmt.Fprintf(&b, "its answers to %d of them were read within %s of it (p50 %s)", f.LagMs.Count, summary.FormatMs(f.LagMs.Max), summary.FormatMs(f.LagMs.P50))
	if f.Unanswered > 0 {
		fmt.Fprintf(&b, ", %d not in time", f.Unanswered)
	}
	b.WriteString(", so a run-on shorter than that may not show")
	if !c.WriterOrdered && c.WorkGraceMs > 0 {
		fmt.Fprintf(&b, "; nor, from a server not seen to write its messages in order, one within %s past the grace",
			summary.FormatMs(summary.GiveOrTakeMs(c.WorkGraceMs)))
	}
	return b.String()
}
