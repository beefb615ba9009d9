package engine

import (
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
)

// lateCall is a call cancelled at t0 (the cancel out at once) with a
// 300 ms grace; fenceAt, when not zero, is when a stdio fence's answer was
// read; a stall of this process from t0+100ms, when set, is our read lag.
func drainedCall(t0 time.Time, fenceAt time.Time, stall time.Duration) *callState {
	r := &runner{plan: Plan{Progress: ProgressRules{Grace: 300 * time.Millisecond}}}
	if stall > 0 {
		r.lag.note(t0.Add(100*time.Millisecond), t0.Add(100*time.Millisecond+stall))
	}
	cs := &callState{r: r, cancelAt: t0, cancelSent: t0}
	if !fenceAt.IsZero() {
		cs.fence = &fence{at: fenceAt}
	}
	return cs
}

func resultEv(at time.Time, text string, isError bool) client.Event {
	return client.Event{Kind: client.EvResult, At: at, Late: true, Result: client.Result{Text: []byte(text), IsError: isError}}
}

// TestLateProgressAfterInTimeAnswer: progress read after its call's own
// answer, which came within cancel + grace, was produced before that
// answer: a write queue draining (the false violation of mcp-go over HTTP,
// seed 7 of the agreement benchmark: progress read 486 ms after the
// cancel, the answer "stopped at step 6" 262 ms after it). Progress read
// before the answer, or after an answer that was itself late, is still
// work after the cancel.
func TestLateProgressAfterInTimeAnswer(t *testing.T) {
	t0 := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	stopped := "stopped at step 6: context canceled"
	for _, tc := range []struct {
		name        string
		fenceAt     time.Time // stdio when set
		answer      client.Event
		answerFirst bool
		drained     int
		afterCancel int
	}{
		{"HTTP: after an answer within the grace", time.Time{}, resultEv(ms(262), stopped, true), true, 1, 0},
		{"HTTP: after a late answer", time.Time{}, resultEv(ms(400), "worked 8 steps", false), true, 0, 1},
		{"HTTP: before the answer", time.Time{}, resultEv(ms(600), stopped, true), false, 0, 1},
		{"stdio: after an answer within the grace and after the fence", ms(320), resultEv(ms(262), stopped, true), true, 1, 0},
		{"stdio: after the fence, no answer first", ms(320), resultEv(ms(600), stopped, true), false, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := drainedCall(t0, tc.fenceAt, 0)
			if tc.answerFirst {
				cs.onResponse(tc.answer)
			}
			cs.onProgress(client.Event{Kind: client.EvProgress, At: ms(486), Late: true, Progress: 5})
			if !tc.answerFirst {
				cs.onResponse(tc.answer)
			}
			if cs.fence != nil {
				cs.settleLate()
			}
			if cs.rec.LateDrained != tc.drained || cs.rec.Violations["after_cancel"] != tc.afterCancel {
				t.Errorf("late_drained %d, after_cancel %d; want %d, %d", cs.rec.LateDrained, cs.rec.Violations["after_cancel"], tc.drained, tc.afterCancel)
			}
		})
	}
}

// TestLateResultWeighedByFence: on stdio a result of finished work read
// after the fence's answer was written after the server read a ping sent
// at cancel + grace, whatever our own read lag: work after the cancel (the
// false pass of mcp-go over stdio, seed 15: two calls the window cut ran
// 52–57 ms past cut + grace while mcpchaos stalled). Read before the
// fence's answer it is nothing, not even queued; without a fence (HTTP)
// our stalls still thin it, and so they do progress on stdio, which a
// server may queue apart from its answers.
func TestLateResultWeighedByFence(t *testing.T) {
	t0 := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	for _, tc := range []struct {
		name     string
		fenceAt  time.Time
		ev       client.Event
		lastSeen time.Time
		queued   int
		fenced   time.Time
	}{
		{"stdio: result after the fence's answer", ms(330), resultEv(ms(358), "worked 8 steps of 25 ms", false), ms(358), 0, time.Time{}},
		{"stdio: result before the fence's answer", ms(400), resultEv(ms(358), "worked 8 steps of 25 ms", false), time.Time{}, 0, time.Time{}},
		{"HTTP: result within the grace less our stall", time.Time{}, resultEv(ms(358), "worked 8 steps of 25 ms", false), time.Time{}, 0, time.Time{}},
		{"stdio: progress within the grace less our stall", ms(330), client.Event{Kind: client.EvProgress, At: ms(358), Late: true, Progress: 8}, time.Time{}, 0, time.Time{}},
		{"stdio: a cancel answer is no work", ms(330), resultEv(ms(358), "stopped at step 6", false), time.Time{}, 0, time.Time{}},
		// Within the fence's give or take by the clock, after its answer:
		// fenced (counted when the server writes in order), our lag or not.
		{"stdio: result within the give or take, after the fence's answer", ms(305), resultEv(ms(318), "worked 8 steps of 25 ms", false), time.Time{}, 0, ms(318)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := drainedCall(t0, tc.fenceAt, 80*time.Millisecond)
			if tc.ev.Kind == client.EvProgress {
				cs.onProgress(tc.ev)
			} else {
				cs.onResponse(tc.ev)
			}
			if cs.fence != nil {
				cs.settleLate()
			}
			if !cs.lastSeen.Equal(tc.lastSeen) || cs.rec.LateQueued != tc.queued || cs.rec.Violations["after_cancel"] != 0 || !cs.fencedSeen.Equal(tc.fenced) {
				t.Errorf("last seen %v, late_queued %d, after_cancel %d, fenced %v; want %v, %d, 0, %v",
					cs.lastSeen, cs.rec.LateQueued, cs.rec.Violations["after_cancel"], cs.fencedSeen, tc.lastSeen, tc.queued, tc.fenced)
			}
		})
	}
}
