package e2e

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/engine"
	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestNoFalseAlarms runs the correct built-in target through every fault
// kind at once. Whatever the faults do to the calls, the target broke no
// rule and left no work behind, so nothing may be flagged.
func TestNoFalseAlarms(t *testing.T) {
	for _, tc := range []falseAlarmCase{
		{transport: "http", disconnect: "rst", malformed: "json", grace: "100ms"},
		// stall_read pauses the one stdout pipe every call of the process
		// shares, for 300 ms: what the server wrote before it saw a cancel
		// is read up to 300 ms late, so the grace must cover the pause
		// (see TestNoFalseAlarmStallReadStdio).
		{transport: "stdio", disconnect: "kill", malformed: "json", grace: "1s"},
	} {
		t.Run(tc.transport, func(t *testing.T) {
			t.Parallel()
			noFalseAlarms(t, tc)
		})
	}
}

// TestNoFalseAlarmStallReadStdio is the stdio case above with the
// default progress grace (100 ms). A cancel issued while another call's
// stall_read has paused the shared stdout pipe is followed by messages the
// server wrote before it saw the cancel, read when the pipe resumes (up to
// 300 ms later), and by the SDK's error answer to the cancel. Neither is
// work after the cancel: messages read after a stalled read may be old,
// and an error answer is the server saying it stopped.
func TestNoFalseAlarmStallReadStdio(t *testing.T) {
	noFalseAlarms(t, falseAlarmCase{transport: "stdio", disconnect: "kill", malformed: "json", grace: "100ms"})
}

type falseAlarmCase struct{ transport, disconnect, malformed, grace string }

// falseAlarmScenario is the scenario of noFalseAlarms; its verbs are the
// transport, the disconnect mode, the malformed mode and the progress grace.
const falseAlarmScenario = `
name: no-false-alarms
seed: 21
target:
  builtin: {transport: %s}
load: {rate: 30/1s, duration: 3s}
# The cap is no bound this test competes with: a 480 ms call on a starved
# machine ran past a 10 s cap with its progress still coming (the timeouts
# verdict's "cap with progress" warning, true of that run).
timeouts: {idle: 5s, max: 60s}
calls:
  - {tool: slow_task, weight: 3, arguments: {steps: 8, step_ms: 60}, progress: true}
  - {tool: echo, weight: 1, arguments: {text: hi}, progress: false}
faults:
  - {kind: cancel, probability: 0.2, after: "uniform(50ms, 400ms)"}
  - {kind: cancel, probability: 0.1, tools: [slow_task], after_progress: 2}
  - {kind: disconnect, probability: 0.03, tools: [slow_task], after: "uniform(50ms, 400ms)", mode: %s}
  - {kind: cancel_race, probability: 0.1, at: response}
  - {kind: cancel_race, probability: 0.1, tools: [slow_task], before_end: 50ms}
  - {kind: stall_read, probability: 0.1, tools: [slow_task], after: 100ms, for: 300ms}
  - {kind: malformed, probability: 0.03, mode: params}
  - {kind: malformed, probability: 0.03, mode: missing_meta}
  - {kind: malformed, probability: 0.03, mode: %s}
  - {kind: reissue, max: 1}
  - {kind: notify_flood, rate: 20/1s}
  - {kind: cancel_unknown, rate: 5/1s}
orphans: {grace: 1s, drain_max: 2s}
progress: {grace: %s, stall: 30s} # a starved machine held progress back over 2 s
`

// noFalseAlarms runs the built-in target through every fault kind as tc
// sets them, and fails on a fault kind not exercised or anything flagged.
func noFalseAlarms(t *testing.T, tc falseAlarmCase) {
	sc := runtest.Parse(t, fmt.Sprintf(falseAlarmScenario, tc.transport, tc.disconnect, tc.malformed, tc.grace))
	plan := planOf(t, sc)
	o := runPlan(t, sc, plan)
	s := o.Sum
	for _, kind := range []string{"cancel", "disconnect", "stall_read", "malformed", "notify_flood", "cancel_unknown"} {
		if s.Faults[kind].Injected == 0 {
			t.Errorf("faults.%s.injected = 0: the run did not exercise it", kind)
			logRecords(t, o, func(r *results.Record) bool {
				return slices.ContainsFunc(r.Faults, func(f results.Fault) bool { return f.Kind == kind })
			})
		}
	}
	checkCancelRace(t, o)
	if s.Calls.Reissued == 0 {
		t.Errorf("calls.reissued = 0: the reissue fault never acted")
	}
	if s.Progress.Violations.Total != 0 {
		t.Errorf("progress.violations = %+v, want none", s.Progress.Violations)
	}
	if s.Protocol.Violations.Total != 0 {
		t.Errorf("protocol.violations = %+v, want none", s.Protocol.Violations)
	}
	c := s.Cancellation
	if c.Orphaned != 0 || c.LeftoverCalls != 0 {
		t.Errorf("cancellation.orphaned = %v, leftover_calls = %d; want 0 and 0", c.Orphaned, c.LeftoverCalls)
		logRecords(t, o, leftoverRecord)
	}
	if _, ok := c.ByProbe[engine.BuiltinProbe]; !ok {
		t.Errorf("cancellation.by_probe = %v: the target's own in-flight count was not read at the end", c.ByProbe)
	}
	if c.LeftoverCPUS > 0.05 {
		t.Errorf("cancellation.leftover_cpu_s = %v, want at most 0.05 (the verdict's threshold)", c.LeftoverCPUS)
	}
	checkProbeErrors(t, tc.transport, c.ProbeErrors)
	if s.Faults["malformed"].Unexpected != 0 {
		t.Errorf("faults.malformed.unexpected = %d, want 0: the SDK answers bad requests correctly", s.Faults["malformed"].Unexpected)
		logRecords(t, o, func(r *results.Record) bool { return strings.Contains(fmt.Sprint(r.Faults), "unexpected") })
	}
	if v := o.verdict(t, report.AreaCancellation); v.Status != report.StatusPass {
		t.Errorf("cancellation verdict = %q (%s), want pass", v.Status, v.Evidence)
	}
	for _, area := range []string{report.AreaProgress, report.AreaProtocol, report.AreaThrottling, report.AreaTimeouts} {
		if v := o.verdict(t, area); v.Status != report.StatusPass {
			t.Errorf("%s verdict = %q (%s), want pass", area, v.Status, v.Evidence)
		}
	}
}

// checkProbeErrors fails on a probe error that is neither a probe of a
// stdio process our own kill ended nor a reading a starved machine did not
// finish in time.
func checkProbeErrors(t *testing.T, transport string, errs []string) {
	t.Helper()
	for _, e := range errs {
		// Our own kill leaves a stdio slot without a process until
		// the next call starts one; a probe read then fails.
		dead := regexp.MustCompile(`server exited: signal: killed|broken pipe|not found in /proc`).MatchString(e)
		// A reading a starved machine did not finish in time is no
		// alarm (noFalseAlarms checks the final reading).
		late := regexp.MustCompile(`context deadline exceeded|no answer: timed out after|i/o timeout`).MatchString(e)
		if !(transport == "stdio" && dead) && !late {
			t.Errorf("probe error: %s", e)
		}
	}
}

// checkCancelRace: a cancel_race acts even when the response won, so
// every call that drew one and was answered shows it injected. It need not
// act at all in a run: on a loaded machine every call that drew one was
// once ended first, by a cancel that beat a slow answer, or by a kill,
// which ends every call in flight on its process (and the calls sent
// while the next process starts queue, then are in flight together): one
// run at load 20 had 28 of 32 skipped so, all unanswered.
func checkCancelRace(t *testing.T, o outcome) {
	t.Helper()
	drawn, answered := 0, 0
	for _, r := range o.Recs {
		for _, f := range r.Faults {
			if f.Kind != "cancel_race" {
				continue
			}
			drawn++
			if r.ResponseUs == 0 {
				continue
			}
			answered++
			if f.Skipped && f.Detail == "the call ended first" {
				t.Errorf("call %d was answered (%s), but its cancel_race was skipped: %s", r.Seq, r.Outcome, f.Detail)
			}
		}
	}
	if drawn == 0 {
		t.Errorf("no call drew a cancel_race: the run did not exercise it")
	}
	t.Logf("cancel_race: drawn for %d calls, %d of them answered, %d injected", drawn, answered, o.Sum.Faults["cancel_race"].Injected)
}

// TestSkippedFaultsDoNothing: a disconnect drawn for calls that all end
// before its moment never acts, so cancellation was not exercised — it
// must not be counted as a disconnect (nor scored pass on its strength).
func TestSkippedFaultsDoNothing(t *testing.T) {
	t.Parallel()
	sc := runtest.Parse(t, `
name: skipped-disconnects
seed: 1
target:
  builtin: {transport: http}
load: {rate: 10/1s, duration: 1s}
calls:
  - {tool: echo, arguments: {text: hi}}
faults:
  - {kind: disconnect, probability: 1, after: 5s, mode: rst}
orphans: {grace: 100ms}
`)
	o := runPlan(t, sc, planOf(t, sc))
	s := o.Sum
	if f := s.Faults["disconnect"]; f.Injected != 0 || f.Skipped != s.Calls.Total {
		t.Fatalf("faults.disconnect = %+v, want 0 injected and every call (%d) skipped", f, s.Calls.Total)
	}
	v := o.verdict(t, report.AreaCancellation)
	if v.Status != report.StatusNotExercised || strings.Contains(v.Evidence, "disconnects") {
		t.Errorf("cancellation verdict = %q (%s), want %q", v.Status, v.Evidence, report.StatusNotExercised)
	}
}
