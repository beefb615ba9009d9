package engine

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// finishedCall is a call that got its answer at now, for the late queue.
func finishedCall(r *runner, seq uint64, now time.Time) *callState {
	cs := &callState{r: r, seq: seq, spec: &CallSpec{Tool: "echo"}, sent: now, responseAt: now, final: finalResult}
	cs.rec = results.Record{Type: results.TypeCall, Seq: seq, Scheduled: now}
	return cs
}

// TestLateQueue: each record reaches the collector after its late window
// and at most lateBatch later, in the order the calls finished; a call
// whose fault is still acting holds up no other call's record.
func TestLateQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const late = time.Second
		r := &runner{plan: Plan{LateWindow: late}, records: make(chan *results.Record, 16)}
		lq := &lateQueue{r: r}
		defer r.lag.start(lq.tick)()
		t0 := time.Now()
		finishedAt := map[uint64]time.Duration{}
		finish := func(seq uint64) *callState {
			cs := finishedCall(r, seq, time.Now())
			finishedAt[seq] = time.Since(t0)
			lq.add(cs)
			return cs
		}
		finish(1)
		time.Sleep(3 * time.Millisecond)
		finish(2)
		slow := finish(3)
		slow.mu.Lock()
		slow.acting = 1 // a fault's Act still running
		slow.mu.Unlock()
		time.Sleep(500 * time.Millisecond)
		finish(4)
		for _, want := range []uint64{1, 2, 4} {
			rec := <-r.records
			got := time.Since(t0)
			if rec.Seq != want {
				t.Fatalf("record of call %d, want %d", rec.Seq, want)
			}
			due := finishedAt[want] + late
			if got < due || got > due+lateBatch {
				t.Errorf("call %d: record at %v, want within [%v, %v]", want, got, due, due+lateBatch)
			}
		}
		slow.mu.Lock()
		slow.endActing()
		slow.mu.Unlock()
		if rec := <-r.records; rec.Seq != 3 {
			t.Errorf("record of call %d, want 3 once its fault was done", rec.Seq)
		}
		r.pending.Wait()
	})
}
