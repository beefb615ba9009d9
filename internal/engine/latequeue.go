package engine

import (
	"sync"
	"time"
)

// A finished call's record waits for the late window (Plan.LateWindow)
// before it goes to the collector, so that what still arrives for the call
// is counted in it. Every call waits the same length of time, so the
// records fall due in the order the calls finished: one queue hands them
// over, in place of a timer and a goroutine per call (issue 28: at 1,000
// calls/s those were a fair share of the run's CPU). The queue has no
// goroutine of its own: the read-lag monitor, which wakes every lagTick
// for the whole run anyway (readlag.go), hands over what is due each time
// it wakes, so the run pays one periodic wake-up for both. A record goes
// to the collector between its late window and lateBatch after it (more
// when this process stalls), never before.

// cutLateWindow is how long the record of a call we cut waits for late
// messages: the late window past the work grace's fence, where an uncut
// call's waits it past its end.
func (p Plan) cutLateWindow() time.Duration {
	return p.LateWindow + max(p.workGrace()-p.Progress.Grace, 0)
}

// lateBatch is the most a record may wait past its late window: the
// monitor's period.
const lateBatch = lagTick

// lateQueue holds the finished calls whose late window has not passed.
// A call we cut waits longer (cutLateWindow): a message of its server
// counts as work only past the work grace after the cut (Plan.workGrace),
// and on stdio only once that grace's fence is answered (fence.go). The
// cut calls have a queue of their own, so each queue's records still fall
// due in the order the calls finished.
type lateQueue struct {
	r     *runner
	mu    sync.Mutex
	calls fifo
	cut   fifo
	batch []*callState // reused by tick, which runs on one goroutine
}

// fifo is one queue of calls with the same late window.
type fifo struct {
	q    []lateCall // by due time; q[head:] are waiting
	head int
}

// lateCall is one call waiting for its late window to pass.
type lateCall struct {
	cs  *callState
	due time.Time
}

// add queues a finished call; r.pending counts it until its record is
// handed over.
func (lq *lateQueue) add(cs *callState) {
	lq.r.pending.Add(1)
	cut := cs.stopped.Load()
	lq.mu.Lock()
	if cut {
		lq.cut.q = append(lq.cut.q, lateCall{cs: cs, due: time.Now().Add(lq.r.plan.cutLateWindow())})
	} else {
		lq.calls.q = append(lq.calls.q, lateCall{cs: cs, due: time.Now().Add(lq.r.plan.LateWindow)})
	}
	lq.mu.Unlock()
}

// tick hands over every record due by now.
func (lq *lateQueue) tick(now time.Time) {
	lq.batch = lq.takeDue(lq.batch[:0], now)
	for i, cs := range lq.batch {
		lq.r.handOver(cs)
		lq.batch[i] = nil
	}
}

// takeDue appends the calls due by now to batch.
func (lq *lateQueue) takeDue(batch []*callState, now time.Time) []*callState {
	lq.mu.Lock()
	defer lq.mu.Unlock()
	return lq.cut.takeDue(lq.calls.takeDue(batch, now), now)
}

// takeDue appends the calls of f due by now to batch (lq.mu held).
func (f *fifo) takeDue(batch []*callState, now time.Time) []*callState {
	for f.head < len(f.q) && !f.q[f.head].due.After(now) {
		batch = append(batch, f.q[f.head].cs)
		f.q[f.head] = lateCall{}
		f.head++
	}
	if f.head == len(f.q) {
		f.q, f.head = f.q[:0], 0
		return batch
	}
	// Keep the slice from growing without end while calls keep coming:
	// move the waiting ones to the front once the taken half dominates.
	if f.head > len(f.q)/2 {
		n := copy(f.q, f.q[f.head:])
		clear(f.q[n:])
		f.q, f.head = f.q[:n], 0
	}
	return batch
}

// handOver gives a call whose late window passed to the collector. A
// call with a fault or a stop still acting (its record waits for the Act
// or the cancel, which are bounded but may be slow on a starved machine or
// to a slow server) is handed over on a goroutine of its own, so it holds
// up no other call's record.
func (r *runner) handOver(cs *callState) {
	if cs.mu.TryLock() {
		acting := cs.acting > 0
		cs.mu.Unlock()
		if !acting {
			r.records <- cs.record()
			r.gw.add(cs)
			r.pending.Done()
			return
		}
	}
	go func() {
		r.records <- cs.record()
		r.gw.add(cs)
		r.pending.Done()
	}()
}
