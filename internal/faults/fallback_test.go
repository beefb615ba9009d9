package faults_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// TestAfterProgressFallback: a cancel due at the 3rd progress notification
// of calls whose progress stops after the 1st (the target's stall_after,
// as when a gateway holds progress back) is not skipped: it acts on its
// time fallback, `after` from the send when written beside
// after_progress, else once the call has been quiet for half of
// timeouts.idle; its record says so. With progress flowing it acts at the
// 3rd notification, as before.
func TestAfterProgressFallback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		stall    string // the target's stall_after
		after    string // the fault's after, "" for none
		fallback bool
		// scheduled: the fault's scheduled time from the send, when it is
		// fixed (after from the send); 0: not checked exactly.
		scheduled time.Duration
		// lo: the least scheduled − sent otherwise. A busy machine only
		// delays progress, so there is no upper bound: the quiet window
		// runs from the last notification, whenever it came.
		lo time.Duration
	}{
		{name: "after beside after_progress", stall: "1", after: "300ms", fallback: true, scheduled: 300 * time.Millisecond},
		// Quiet for 2 s (half of the 4 s idle timeout) from the send at
		// least, from the one notification when it came.
		{name: "half of timeouts.idle", stall: "1", fallback: true, lo: 2 * time.Second},
		{name: "progress flows", stall: "0", after: "5s", lo: 250 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			after := ""
			if tc.after != "" {
				after = ", after: " + tc.after
			}
			o := runYAML(t, `
name: after-progress-fallback
seed: 16
target: {builtin: {transport: http, stall_after: `+tc.stall+`}}
load: {rate: 5/1s, duration: 1s}
timeouts: {idle: 4s, max: 20s}
calls:
  - {tool: slow_task, arguments: {steps: 60, step_ms: 100}, progress: true}
faults:
  - {kind: cancel, probability: 1, after_progress: 3`+after+`}
orphans: {grace: 200ms}
`, opts{})
			if len(o.Recs) == 0 {
				t.Fatal("no calls")
			}
			for _, rec := range o.Recs {
				if rec.Outcome != results.Cancelled || len(rec.Faults) != 1 {
					t.Errorf("call %d: outcome %s, faults %+v; want cancelled by the fault", rec.Seq, rec.Outcome, rec.Faults)
					continue
				}
				f := rec.Faults[0]
				if f.Skipped || strings.Contains(f.Detail, "fallback") != tc.fallback {
					t.Errorf("call %d: fault %+v, want fallback %v", rec.Seq, f, tc.fallback)
				}
				from := time.Duration(f.ScheduledUs-rec.SentUs) * time.Microsecond
				switch {
				case tc.scheduled > 0 && from != tc.scheduled:
					t.Errorf("call %d: the fault was scheduled %s after the send, want %s", rec.Seq, from, tc.scheduled)
				case tc.scheduled == 0 && from < tc.lo:
					t.Errorf("call %d: the fault was scheduled %s after the send, want at least %s", rec.Seq, from, tc.lo)
				}
			}
			if t.Failed() {
				o.dump(t)
			}
		})
	}
}
