package faults_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestCancelRace: a cancel sent as the response arrives (at: response) or
// just before the tool's typical end (before_end) leaves a correct server
// healthy: no violation, nothing orphaned, later calls ok. A cancel that
// lost the race is still recorded, on a call whose outcome the response
// settled.
func TestCancelRace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		transport, fault string
	}{
		{"http", "at: response"},
		{"stdio", "at: response"},
		{"http", "before_end: 60ms"},
		{"stdio", "before_end: 60ms"},
	} {
		name := tc.transport + "/" + strings.Fields(tc.fault)[0]
		t.Run(strings.TrimSuffix(name, ":"), func(t *testing.T) {
			t.Parallel()
			o := runYAML(t, fmt.Sprintf(`
name: cancel-race
seed: 19
target: {builtin: {transport: %s}}
load: {rate: 20/1s, duration: 1500ms}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: slow_task, arguments: {steps: 6, step_ms: 40}, progress: true}
faults:
  - {kind: cancel_race, probability: 0.5, %s}
orphans: {grace: 500ms}
# A starved stdio target wrote a step's progress after the fence that
# follows the cancel by the grace (issue 25): 2s, as TestCancelCorrectServer keeps.
progress: {grace: 2s}
`, tc.transport, tc.fault), opts{})
			s := o.Sum
			inj := o.injected("cancel_race")
			if len(inj) == 0 || s.Faults["cancel_race"].Injected != len(inj) {
				t.Fatalf("faults.cancel_race.injected = %d, records carry %d; want > 0, equal", s.Faults["cancel_race"].Injected, len(inj))
			}
			atResponse, before := 0, 0
			for _, rf := range inj {
				r, f := rf.rec, rf.f
				switch {
				case f.Detail == "cancel at the response":
					// The response won: the cancel was still sent, and the
					// call stays what the response made it.
					atResponse++
					if r.Outcome != results.OK || f.ScheduledUs != r.ResponseUs {
						t.Errorf("seq %d: outcome %q, cancel scheduled at %dµs, response at %dµs; want ok, at the response",
							r.Seq, r.Outcome, f.ScheduledUs, r.ResponseUs)
					}
				case strings.HasPrefix(f.Detail, "cancel 60ms before the typical end"):
					before++
					if r.Outcome != results.Cancelled && r.Outcome != results.OK {
						t.Errorf("seq %d: outcome %q after a cancel before the end, want cancelled (or ok when the response won)", r.Seq, r.Outcome)
					}
				default:
					t.Errorf("seq %d: detail %q", r.Seq, f.Detail)
				}
			}
			want := report.StatusNotExercised
			if strings.HasPrefix(tc.fault, "at:") {
				if before != 0 {
					t.Errorf("%d cancels before the end with at: response", before)
				}
			} else {
				// Until the typical duration is known the fault acts at the
				// response; after that, before the end.
				if before == 0 || s.Calls.Cancelled == 0 {
					t.Errorf("%d cancels before the typical end, %d calls cancelled; want some", before, s.Calls.Cancelled)
				}
				want = report.StatusPass
			}
			o.expectCorrect(t, "cancel_race", want)
			if s.Calls.OK < s.Calls.Total/2 {
				t.Errorf("%d of %d calls ok; want at least the half that drew no fault", s.Calls.OK, s.Calls.Total)
			}
		})
	}
}
