package engine

import (
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
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
		{"all before the fence", ms(400), []lateMsg{{at: ms(200), progress: true, work: true}, {at: ms(390), progress: true, work: true}, {at: ms(395), progress: false, work: true}}, 3, 0, time.Time{}},
		{"progress after the fence", ms(400), []lateMsg{{at: ms(350), progress: true, work: true}, {at: ms(450), progress: true, work: true}, {at: ms(500), progress: true, work: true}}, 1, 2, ms(500)},
		{"a result after the fence", ms(400), []lateMsg{{at: ms(600), progress: false, work: true}}, 0, 0, ms(600)},
		{"no answer to the fence", time.Time{}, []lateMsg{{at: ms(900), progress: true, work: true}}, 1, 0, time.Time{}},
		{"read with the answer is not after it", ms(400), []lateMsg{{at: ms(400), progress: true, work: true}}, 1, 0, time.Time{}},
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
				late: []lateMsg{{at: t0.Add(tc.grace), progress: true, work: true}, {at: t0.Add(tc.grace + time.Millisecond), work: true}, {at: t0.Add(tc.grace), lagged: true, work: true}}}
			cs.settleLate()
			if cs.rec.LateQueued != tc.queued || cs.rec.LateQueuedPrompt != tc.prompts || cs.rec.Violations["after_cancel"] != 0 {
				t.Errorf("late_queued %d, prompt %d, after_cancel %d; want %d, %d, 0",
					cs.rec.LateQueued, cs.rec.LateQueuedPrompt, cs.rec.Violations["after_cancel"], tc.queued, tc.prompts)
			}
		})
	}
}

// TestFencerShares: a cancel whose fence may go out with the pending one
// of its grace shares it; one that needs a later fence gets a new one at
// its time, and a fence of another grace (the work grace) is its own.
func TestFencerShares(t *testing.T) {
	const pg, wg = 100 * time.Millisecond, 300 * time.Millisecond
	f := &fencer{}
	now := time.Now().Add(time.Hour) // far enough that nothing is sent during the test
	a := f.after(now, pg)
	if !a.sendAt.Equal(now) {
		t.Fatalf("first fence at %v, want %v", a.sendAt, now)
	}
	w := f.after(now.Add(wg-pg), wg)
	if w == a {
		t.Fatalf("the work grace's fence is the progress grace's, want one of its own")
	}
	if b := f.after(now.Add(-50*time.Millisecond), pg); b != a {
		t.Errorf("a cancel that may have its fence sooner got a new one, want the pending one")
	}
	if b := f.after(now.Add(-50*time.Millisecond+wg-pg), wg); b != w {
		t.Errorf("a cancel that may have its work fence sooner got a new one, want the pending one")
	}
	c := f.after(now.Add(150*time.Millisecond), pg)
	if c == a || c == w || !c.sendAt.Equal(now.Add(150*time.Millisecond)) {
		t.Errorf("a cancel needing a fence after the pending one's got %v, want a new fence at +150ms", c.sendAt)
	}
}

// TestNoteLateOffStdio: without a fence (HTTP) a late message counts at
// once: progress past the progress grace breaks the progress rule, and a
// message past the work grace (orphans.grace, when longer) and a tenth of
// it is leftover work; one between the two graces, or within that tenth,
// is not.
func TestNoteLateOffStdio(t *testing.T) {
	t0 := time.Unix(2000, 0)
	for _, tc := range []struct {
		name         string
		after        time.Duration
		wantLeftover bool
	}{
		{"past both graces", 350 * time.Millisecond, true},
		{"past the progress grace only", 150 * time.Millisecond, false},
		{"within a tenth past the work grace", 320 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &runner{plan: Plan{Progress: ProgressRules{Grace: 100 * time.Millisecond}, Orphans: Orphans{Grace: 300 * time.Millisecond}}}
			cs := &callState{r: r, cancelSent: t0}
			at := t0.Add(tc.after)
			cs.noteLate(at, true)
			if cs.rec.Violations["after_cancel"] != 1 || cs.lastSeen.Equal(at) != tc.wantLeftover || len(cs.late) != 0 {
				t.Errorf("after_cancel %d, last seen %v, kept %d; want 1, leftover %v, 0", cs.rec.Violations["after_cancel"], cs.lastSeen, len(cs.late), tc.wantLeftover)
			}
		})
	}
}

// TestSettleLateWorkFence: with a work grace (300 ms) longer than the
// progress grace (100 ms), progress read after the progress fence's
// answer breaks the progress rule; a message later than the work grace is
// leftover work when read after the work fence's answer, and only queued
// before it; one within the work grace is neither.
func TestSettleLateWorkFence(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	for _, tc := range []struct {
		name                string
		workAt              time.Time // the work fence's answer; zero: none
		late                []lateMsg
		afterCancel, queued int
		lastSeen            time.Time
	}{
		{"within the work grace", ms(310), []lateMsg{{at: ms(150), progress: true}, {at: ms(250), progress: true}}, 2, 0, time.Time{}},
		{"past it, after its fence", ms(310), []lateMsg{{at: ms(250), progress: true}, {at: ms(400), progress: true, work: true}}, 2, 0, ms(400)},
		{"past it, before its fence's answer", ms(350), []lateMsg{{at: ms(320), progress: true, work: true}}, 1, 1, time.Time{}},
		{"a result after the work fence", ms(310), []lateMsg{{at: ms(500), work: true}}, 0, 0, ms(500)},
		{"no answer to the work fence", time.Time{}, []lateMsg{{at: ms(900), progress: true, work: true}}, 1, 1, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := &callState{fence: &fence{at: ms(110)}, workFence: &fence{at: tc.workAt, grace: 300 * time.Millisecond}, late: tc.late}
			cs.settleLate()
			if cs.rec.Violations["after_cancel"] != tc.afterCancel || cs.rec.LateQueued != tc.queued || !cs.lastSeen.Equal(tc.lastSeen) {
				t.Errorf("after_cancel %d, late_queued %d, last seen %v; want %d, %d, %v",
					cs.rec.Violations["after_cancel"], cs.rec.LateQueued, cs.lastSeen, tc.afterCancel, tc.queued, tc.lastSeen)
			}
		})
	}
}

// TestNoteLateOnStdio: with a fence, a late message is kept for weighing,
// marked as possible work only past the work grace and a tenth of it.
func TestNoteLateOnStdio(t *testing.T) {
	t0 := time.Unix(3000, 0)
	r := &runner{plan: Plan{Progress: ProgressRules{Grace: 100 * time.Millisecond}, Orphans: Orphans{Grace: 300 * time.Millisecond}}}
	cs := &callState{r: r, cancelSent: t0, fence: &fence{}}
	cs.noteLate(t0.Add(150*time.Millisecond), true)
	cs.noteLate(t0.Add(320*time.Millisecond), true)
	cs.noteLate(t0.Add(350*time.Millisecond), true)
	if len(cs.late) != 3 || cs.late[0].work || cs.late[1].work || !cs.late[2].work {
		t.Errorf("kept %+v; want three, only the last past the work grace and a tenth of it", cs.late)
	}
}

// TestSettleLateFenced: a message past the grace but within the fence's
// give or take by the clock (work false) proves nothing on its own; read
// after the work fence's answer it is kept apart (fencedSeen, the
// record's fenced_us), for the summary to count when the server writes in
// order (report/fenced.go).
func TestSettleLateFenced(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	for _, tc := range []struct {
		name     string
		fenceAt  time.Time
		late     []lateMsg
		fenced   time.Time
		lastSeen time.Time
	}{
		{"after the answer", ms(305), []lateMsg{{at: ms(310), progress: true}, {at: ms(325), progress: true}}, ms(325), time.Time{}},
		{"before the answer", ms(330), []lateMsg{{at: ms(310), progress: true}, {at: ms(325), progress: true}}, time.Time{}, time.Time{}},
		{"no answer", time.Time{}, []lateMsg{{at: ms(325), progress: true}}, time.Time{}, time.Time{}},
		{"work past the give or take too", ms(305), []lateMsg{{at: ms(320), progress: true}, {at: ms(340), progress: true, work: true}}, ms(320), ms(340)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := &callState{fence: &fence{at: tc.fenceAt}, late: tc.late}
			cs.settleLate()
			if !cs.fencedSeen.Equal(tc.fenced) || !cs.lastSeen.Equal(tc.lastSeen) {
				t.Errorf("fenced %v, last seen %v; want %v, %v", cs.fencedSeen, cs.lastSeen, tc.fenced, tc.lastSeen)
			}
		})
	}
}

// TestRecordLead: a call answered after its progress keeps how long
// before the answer the last progress came (the summary's test of a
// writer in order, report/fenced.go); a call cut before its answer keeps
// none: its answer is not the record's (answer), and a lead would run to
// the cut.
func TestRecordLead(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name   string
		cutAt  time.Duration // 0: not cut
		wantUs int64
	}{
		{"answered", 0, 2000},
		{"cut, then answered", 11 * time.Millisecond, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := &callState{r: &runner{}, spec: &CallSpec{Tool: "work", Progress: true}, sent: now,
				responseAt: now.Add(12 * time.Millisecond), final: finalResult}
			cs.rec = results.Record{Type: results.TypeCall, Scheduled: now}
			cs.prog.start(now)
			cs.prog.add(now.Add(10*time.Millisecond), 1, 0, false)
			if tc.cutAt > 0 {
				cs.cancelAt = now.Add(tc.cutAt)
			}
			rec := cs.record()
			if rec.Progress == nil || rec.Progress.LeadUs != tc.wantUs {
				t.Fatalf("progress %+v; want lead_us %d", rec.Progress, tc.wantUs)
			}
		})
	}
}

// TestFenceLag: a call cancelled on stdio keeps how long after our cancel
// + the work grace (when its work fence went out) the fence's answer was
// read (the wire's resolution for it, summed up as
// cancellation.work_fences); -1 with no answer by then; nothing without a
// fence (HTTP) or a cancel sent, for a disconnect (it ends the server's
// pipe) or for a ping lost with the pipe.
func TestFenceLag(t *testing.T) {
	now := time.Now()
	sent := now.Add(3 * time.Millisecond) // the cancel went out 3 ms after the cut
	grace := 300 * time.Millisecond
	plan := Plan{}
	plan.Orphans.Grace = grace
	for _, tc := range []struct {
		name    string
		fence   *fence
		outcome string
		sent    bool
		wantLag int64
	}{
		{"answered 12 ms after cancel + grace", &fence{grace: grace, at: sent.Add(312 * time.Millisecond)}, results.Cancelled, true, 12000},
		{"no answer yet", &fence{grace: grace}, results.Cancelled, true, -1},
		{"the ping lost with the pipe", &fence{grace: grace, lost: true}, results.Cancelled, true, 0},
		{"a disconnect", &fence{grace: grace}, results.Disconnected, true, 0},
		{"no fence (HTTP)", nil, results.Cancelled, true, 0},
		{"no cancel sent", &fence{grace: grace, at: sent.Add(312 * time.Millisecond)}, "", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := &callState{r: &runner{plan: plan}, workFence: tc.fence, stopOutcome: tc.outcome, cancelAt: now}
			if tc.sent {
				cs.cancelSent = sent
			}
			if got := cs.fenceLag(); got != tc.wantLag {
				t.Errorf("fenceLag = %d, want %d", got, tc.wantLag)
			}
		})
	}
}
