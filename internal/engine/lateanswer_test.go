package engine

import (
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestLateAnswerByTheClock: a cut call's answer of finished work read past
// cancel + the work grace shows the call ran to its end past it, fence or
// not, with no give or take (the table's false passes: go-sdk over stdio,
// one cut call 16 ms past the grace, its answer read before a fence
// answered 30–100 ms late). Our own stalls still thin it; an answer to
// the cancel, an error, a task's handle and an answer within the grace
// show nothing.
func TestLateAnswerByTheClock(t *testing.T) {
	t0 := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	done := func(at time.Time) client.Event {
		ev := resultEv(at, "worked 8 steps of 25 ms", false)
		ev.Result.Type = client.ResultComplete
		return ev
	}
	task := done(ms(318))
	task.Result.Type = client.ResultTask
	stopped := done(ms(318))
	stopped.Result.Text = []byte("stopped at step 6: context canceled")
	failed := done(ms(318))
	failed.Result.IsError = true
	for _, tc := range []struct {
		name     string
		fenceAt  time.Time // stdio when set
		stall    time.Duration
		ev       client.Event
		leftover int64 // µs, the record's
		byAnswer bool
		fenced   int64 // µs: weighed by the fence as before
	}{
		{"stdio: before a slow fence's answer", ms(400), 0, done(ms(318)), 318_000, true, 0},
		{"stdio: after the fence's answer", ms(305), 0, done(ms(318)), 318_000, true, 0},
		{"HTTP: within the old give or take", time.Time{}, 0, done(ms(318)), 318_000, true, 0},
		{"stdio: within the grace once our stall is off", ms(400), 80 * time.Millisecond, done(ms(318)), 0, false, 0},
		{"stdio: within the grace", ms(400), 0, done(ms(295)), 0, false, 0},
		{"stdio: an answer to the cancel", ms(400), 0, stopped, 0, false, 0},
		{"stdio: an error", ms(400), 0, failed, 0, false, 0},
		{"stdio: a task's handle, after the fence's answer", ms(305), 0, task, 0, false, 318_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := drainedCall(t0, tc.fenceAt, tc.stall)
			cs.onResponse(tc.ev)
			if cs.fence != nil {
				cs.settleLate()
			}
			var rec results.Record
			cs.leftover(&rec)
			if rec.LeftoverUs != tc.leftover || rec.LeftoverByAnswer != tc.byAnswer || rec.FencedUs != tc.fenced {
				t.Errorf("leftover_us %d, by answer %v, fenced_us %d; want %d, %v, %d",
					rec.LeftoverUs, rec.LeftoverByAnswer, rec.FencedUs, tc.leftover, tc.byAnswer, tc.fenced)
			}
		})
	}
}

// TestLeftoverProvenFirst: a message a fence proved past the grace makes
// the call's leftover proven, though its answer came later and sets the
// time.
func TestLeftoverProvenFirst(t *testing.T) {
	t0 := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	cs := drainedCall(t0, time.Time{}, 0)
	cs.lastSeen, cs.answerSeen = t0.Add(400*time.Millisecond), t0.Add(450*time.Millisecond)
	var rec results.Record
	cs.leftover(&rec)
	if rec.LeftoverUs != 450_000 || rec.LeftoverByAnswer {
		t.Errorf("leftover_us %d, by answer %v; want 450000, false", rec.LeftoverUs, rec.LeftoverByAnswer)
	}
}
