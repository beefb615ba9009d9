package engine

import (
	"testing"
	"time"
)

// TestSettleLate: late messages on stdio are weighed against the fence's
// answer: read after it, work after the cancel; read before it, or with
// no answer, only queued.
func TestSettleLate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	for _, tc := range []struct {
		name                string
		fenceAt             time.Time // zero: no answer
		late                []lateMsg
		queued, afterCancel int
		lastSeen            time.Time
	}{
		{"all before the fence", ms(400), []lateMsg{{at: ms(200), progress: true}, {at: ms(390), progress: true}, {at: ms(395), progress: false}}, 3, 0, time.Time{}},
		{"progress after the fence", ms(400), []lateMsg{{at: ms(350), progress: true}, {at: ms(450), progress: true}, {at: ms(500), progress: true}}, 1, 2, ms(500)},
		{"a result after the fence", ms(400), []lateMsg{{at: ms(600), progress: false}}, 0, 0, ms(600)},
		{"no answer to the fence", time.Time{}, []lateMsg{{at: ms(900), progress: true}}, 1, 0, time.Time{}},
		{"read with the answer is not after it", ms(400), []lateMsg{{at: ms(400), progress: true}}, 1, 0, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := &callState{fence: &fence{at: tc.fenceAt}, late: tc.late}
			cs.settleLate()
			if cs.rec.LateQueued != tc.queued || cs.rec.Violations["after_cancel"] != tc.afterCancel || !cs.lastSeen.Equal(tc.lastSeen) {
				t.Errorf("late_queued %d, after_cancel %d, last seen %v; want %d, %d, %v",
					cs.rec.LateQueued, cs.rec.Violations["after_cancel"], cs.lastSeen, tc.queued, tc.afterCancel, tc.lastSeen)
			}
		})
	}
}

// TestPromptFence: messages queued before a fence's answer are counted
// apart when that answer came within a tenth of the grace (50 ms at most)
// of the call's cancel plus the grace: the server read its input in time.
func TestPromptFence(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	for _, tc := range []struct {
		name            string
		grace           time.Duration
		fenceAt         time.Time
		queued, prompts int
	}{
		{"answered 5 ms after cancel + grace", 300 * time.Millisecond, ms(305), 2, 2},
		{"answered a tenth of the grace after", 300 * time.Millisecond, ms(330), 2, 2},
		{"answered just past a tenth", 300 * time.Millisecond, ms(331), 2, 0},
		{"a long grace: 50 ms at most", 2 * time.Second, ms(2060), 2, 0},
		{"a long grace, answered in 50 ms", 2 * time.Second, ms(2050), 2, 2},
		{"no answer", 300 * time.Millisecond, time.Time{}, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &runner{plan: Plan{Progress: ProgressRules{Grace: tc.grace}}}
			cs := &callState{r: r, cancelSent: t0, fence: &fence{at: tc.fenceAt},
				late: []lateMsg{{at: t0.Add(tc.grace), progress: true}, {at: t0.Add(tc.grace + time.Millisecond)}, {at: t0.Add(tc.grace), lagged: true}}}
			cs.settleLate()
			if cs.rec.LateQueued != tc.queued || cs.rec.LateQueuedPrompt != tc.prompts || cs.rec.Violations["after_cancel"] != 0 {
				t.Errorf("late_queued %d, prompt %d, after_cancel %d; want %d, %d, 0",
					cs.rec.LateQueued, cs.rec.LateQueuedPrompt, cs.rec.Violations["after_cancel"], tc.queued, tc.prompts)
			}
		})
	}
}

// TestFencerShares: a cancel whose fence may go out with the pending one
// shares it; one that needs a later fence gets a new one at its time.
func TestFencerShares(t *testing.T) {
	f := &fencer{}
	now := time.Now().Add(time.Hour) // far enough that nothing is sent during the test
	a := f.after(now)
	if !a.sendAt.Equal(now) {
		t.Fatalf("first fence at %v, want %v", a.sendAt, now)
	}
	if b := f.after(now.Add(-50 * time.Millisecond)); b != a {
		t.Errorf("a cancel that may have its fence sooner got a new one, want the pending one")
	}
	c := f.after(now.Add(150 * time.Millisecond))
	if c == a || !c.sendAt.Equal(now.Add(150*time.Millisecond)) {
		t.Errorf("a cancel needing a fence after the pending one's got %v, want a new fence at +150ms", c.sendAt)
	}
}

// TestNoteLateOffStdio: without a fence (HTTP) a late message counts at
// once, as before.
func TestNoteLateOffStdio(t *testing.T) {
	cs := &callState{}
	at := time.Unix(2000, 0)
	cs.noteLate(at, true)
	if cs.rec.Violations["after_cancel"] != 1 || !cs.lastSeen.Equal(at) || len(cs.late) != 0 {
		t.Errorf("after_cancel %d, last seen %v, kept %d; want 1, %v, 0", cs.rec.Violations["after_cancel"], cs.lastSeen, len(cs.late), at)
	}
}
