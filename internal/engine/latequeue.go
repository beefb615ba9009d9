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

// lateBatch is the most a record may wait past its late window: the
// monitor's period.
const lateBatch = lagTick

// lateQueue holds the finished calls whose late window has not passed.
type lateQueue struct {
	r     *runner
	mu    sync.Mutex
	q     []lateCall // by due time; q[head:] are waiting
	head  int
	batch []*callState // reused by tick, which runs on one goroutine
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
	lq.mu.Lock()
	lq.q = append(lq.q, lateCall{cs: cs, due: time.Now().Add(lq.r.plan.LateWindow)})
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
	for lq.head < len(lq.q) && !lq.q[lq.head].due.After(now) {
		batch = append(batch, lq.q[lq.head].cs)
		lq.q[lq.head] = lateCall{}
		lq.head++
	}
	if lq.head == len(lq.q) {
		lq.q, lq.head = lq.q[:0], 0
		return batch
	}
	// Keep the slice from growing without end while calls keep coming:
	// move the waiting ones to the front once the taken half dominates.
	if lq.head > len(lq.q)/2 {
		n := copy(lq.q, lq.q[lq.head:])
		clear(lq.q[n:])
		lq.q, lq.head = lq.q[:n], 0
	}
	return batch
}

// handOver gives a call whose late window passed to the collector. A
// call with a fault still acting (its record waits for the Act, which is
// bounded but may be slow on a starved machine) is handed over on a
// goroutine of its own, so it holds up no other call's record.
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
