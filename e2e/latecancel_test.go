package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// Progress after a cancel: the server's when it was told, the gateway's
// when the gateway lost the cancel (issue 30). checkLostCancelProgress
// holds the runs through mcp-remote (TestMcpRemote, TestMcpRemoteSSE)
// against the target's records; TestServerIgnoringCancelStillBlamed is the
// positive control: a server that learns of our cancel and runs on is
// still a progress violation, directly and through a bridge that passes
// the cancel on.

// afterCancelIn reads the after_cancel count a progress verdict's evidence
// blames on the server ("after_cancel 2"), or 0.
var afterCancelIn = regexp.MustCompile(`\bafter_cancel (\d+)`)

// checkLostCancelProgress: the after_cancel notifications of the calls
// whose cancel the target's records (at base) show it never learned of
// are gateway.progress_after_lost_cancel, and the progress verdict blames
// the server for no more after_cancel than the other calls had.
func checkLostCancelProgress(t *testing.T, o outcome, base string) {
	t.Helper()
	lost := lostSeqsAtTarget(t, base, o)
	late := 0 // after_cancel on calls whose cancel the target never learned of
	for _, r := range o.Recs {
		if lost[r.Seq] {
			late += r.Violations["after_cancel"]
		}
	}
	g, v := o.Sum.Gateway, o.verdict(t, report.AreaProgress)
	if g.ProgressAfterLostCancel != late {
		t.Errorf("gateway.progress_after_lost_cancel = %d; the calls the target's records show never learned of our cancel had %d after_cancel notifications",
			g.ProgressAfterLostCancel, late)
	}
	blamed := 0
	if m := afterCancelIn.FindStringSubmatch(v.Evidence); m != nil {
		blamed, _ = strconv.Atoi(m[1])
	}
	if server := o.Sum.Progress.Violations.AfterCancel - late; blamed > server {
		t.Errorf("progress verdict %q (%s) blames the server for after_cancel %d; only %d came on calls whose target learned of the cancel",
			v.Status, v.Evidence, blamed, server)
	}
	if late > 0 && !strings.Contains(v.Evidence, "gateway.progress_after_lost_cancel") {
		t.Errorf("progress verdict %q (%s) does not say the late progress of the lost cancels is the gateway's", v.Status, v.Evidence)
	}
	t.Logf("progress after our cancel: %d notifications in all, %d on the %d calls whose cancel the target never learned of; progress verdict %q",
		o.Sum.Progress.Violations.AfterCancel, late, len(lost), v.Status)
}

// lostSeqsAtTarget gives, from the target's own records (at base), the
// seqs of our cancelled calls (a cancel or a timeout, not a disconnect)
// that no execution learned of and that ran to their end more than
// 100 ms after our cancel went out.
func lostSeqsAtTarget(t *testing.T, base string, o outcome) map[uint64]bool {
	t.Helper()
	cancelAt := map[string]time.Time{} // by seq
	for _, r := range o.Recs {
		if r.Outcome == results.Cancelled && r.CancelSentUs > 0 {
			cancelAt[fmt.Sprint(r.Seq)] = r.Scheduled.Add(time.Duration(r.CancelSentUs) * time.Microsecond)
		}
	}
	lost := map[uint64]bool{}
	for _, c := range targetCalls(t, base) {
		parts := strings.Split(c.Marker, ".") // RUN.SEQ.ATTEMPT
		if len(parts) != 3 {
			continue
		}
		at, ok := cancelAt[parts[1]]
		if ok && c.Cancelled.IsZero() && c.StreamClosed.IsZero() && c.Completed.After(at.Add(100*time.Millisecond)) {
			seq, _ := strconv.ParseUint(parts[1], 10, 64)
			lost[seq] = true
		}
	}
	return lost
}

// TestServerIgnoringCancelStillBlamed: the scenario of the mcp-remote runs
// straight at a stdio built-in target that ignores cancels (leak_on_cancel
// 1), no gateway: a progress violation naming after_cancel. (Behind a
// gateway that passes the cancel on, the same server is still blamed:
// e2e/gateways TestLostCancelProgressIsTheGateways. `mcpchaos proxy
// --stdio` is no such control: it relays nothing of a call after
// forwarding its cancel.)
func TestServerIgnoringCancelStillBlamed(t *testing.T) {
	t.Parallel()
	sc := runtest.Parse(t, `
name: ignoring-cancels
seed: 7
target: {builtin: {transport: stdio, leak_on_cancel: 1}}
load: {rate: 5/1s, duration: 2s}
timeouts: {idle: 20s, max: 30s}
calls:
  - {tool: slow_task, arguments: {steps: 10, step_ms: 100}, progress: true}
faults:
  - {kind: cancel, probability: 0.5, after: 300ms}
orphans: {grace: 200ms}
fail_on_violation: false
`)
	plan := planOf(t, sc)
	quick(&plan)
	o := runPlan(t, sc, plan)
	if o.Sum.Progress.Violations.AfterCancel == 0 {
		t.Fatalf("progress.violations.after_cancel = 0 with %d calls cancelled: the control proves nothing", o.Sum.Calls.Cancelled)
	}
	if v := o.verdict(t, report.AreaProgress); v.Status != report.StatusViolation || afterCancelIn.FindStringSubmatch(v.Evidence) == nil {
		t.Errorf("progress verdict %q (%s), want a violation naming after_cancel", v.Status, v.Evidence)
	}
}
