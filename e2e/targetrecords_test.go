package e2e

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// What a built-in target's own records (GET /calls, read by targetCalls)
// say about a run, counted here apart from the gateway join, so that a
// test can hold the gateway section against them.

// recordsLine sums up a target's records: executions, those that ran to
// their end, those that learned of a cancel, those whose client's stream
// closed without the handler being told, and those never ended.
func recordsLine(calls []results.TruthCall) string {
	var completed, cancelled, closed, unended int
	for _, c := range calls {
		if !c.Completed.IsZero() {
			completed++
		}
		if !c.Cancelled.IsZero() {
			cancelled++
		}
		if !c.StreamClosed.IsZero() {
			closed++
		}
		if c.Ended.IsZero() {
			unended++
		}
	}
	return fmt.Sprintf("%d executions: %d completed, %d learned a cancel, %d stream closed untold, %d never ended",
		len(calls), completed, cancelled, closed, unended)
}

// recordsBySeq groups a target's records by our call's seq (the marker is
// RUN.SEQ.ATTEMPT; each test's target serves one run).
func recordsBySeq(calls []results.TruthCall) map[string][]results.TruthCall {
	by := map[string][]results.TruthCall{}
	for _, c := range calls {
		if parts := strings.Split(c.Marker, "."); len(parts) == 3 {
			by[parts[1]] = append(by[parts[1]], c)
		}
	}
	return by
}

// heldAtTarget counts, of our answered calls with progress that the
// target ran once, those whose first notification reached us only after
// the target's record of the call had completed: progress the hop between
// held back, by the target's own clock (same host). It is what
// gateway.progress_held counts, read here from the records alone.
func heldAtTarget(recs []*results.Record, calls []results.TruthCall) (withProgress, held int) {
	by := recordsBySeq(calls)
	for _, r := range recs {
		ex := by[fmt.Sprint(r.Seq)]
		if r.Outcome != results.OK || r.FirstProgUs == 0 || len(ex) != 1 || ex[0].Completed.IsZero() || len(ex[0].Progress) == 0 {
			continue
		}
		withProgress++
		first := r.Scheduled.Add(time.Duration(r.FirstProgUs) * time.Microsecond)
		if first.After(ex[0].Completed) {
			held++
		}
	}
	return withProgress, held
}

// stopsAtTarget sorts our cancelled calls (a cancel or a timeout: a
// 2026-07-28 stream close) by the target's records: learned, when an
// execution learned of the cancel (or saw its stream close) and did not
// run to its end more than 100 ms after it; crossed, when the only
// execution had completed by then (the cancel crossed the result); else
// other (ran on, several executions, or none).
func stopsAtTarget(recs []*results.Record, calls []results.TruthCall) (learned, crossed, other int) {
	by := recordsBySeq(calls)
	for _, r := range recs {
		if r.Outcome != results.Cancelled || r.CancelSentUs == 0 {
			continue
		}
		at := r.Scheduled.Add(time.Duration(r.CancelSentUs)*time.Microsecond + 100*time.Millisecond)
		ex := by[fmt.Sprint(r.Seq)]
		switch {
		case len(ex) != 1:
			other++
		case !ex[0].Completed.IsZero() && !ex[0].Completed.After(at):
			crossed++
		case (!ex[0].Cancelled.IsZero() || !ex[0].StreamClosed.IsZero()) && ex[0].Completed.IsZero() && !ex[0].Ended.IsZero():
			learned++
		default:
			other++
		}
	}
	return learned, crossed, other
}
