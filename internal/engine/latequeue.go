package engine

import (
	"sync"
	"time"
)

// A finished call's record waits for the late window (Plan.LateWindow)
// before it goes to the collector, so that what still arrives for the call
// is counted in it. Every call waits the same length of time, so the
// records fall due in the order the calls finished: one queue and one
// goroutine hand them over, in place of a timer and a goroutine per call
// (issue 28: at 1,000 calls/s those were a fair share of the run's CPU).
// The goroutine wakes at most every lateBatch and hands over every record
// due by then: a record goes to the collector between its late window and
// lateBatch after it, never before.

// lateBatch is the most a record may wait past its late window, so that
// the queue wakes once for a batch of records rather than for each.
const lateBatch = 10 * time.Millisecond

// lateQueue holds the finished calls whose late window has not passed.
type lateQueue struct {
	r    *runner
	mu   sync.Mutex
	q    []lateCall // by due time; q[head:] are waiting
	head int
	kick chan struct{} // the queue was empty and is not
	quit chan struct{}
	done chan struct{}
}

// lateCall is one call waiting for its late window to pass.
type lateCall struct {
	cs  *callState
	due time.Time
}

// startLateQueue starts the queue's goroutine. stop ends it once r.pending
// has no record left waiting (wrapUp waits for that first).
func startLateQueue(r *runner) (*lateQueue, func()) {
	lq := &lateQueue{r: r, kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go lq.run()
	return lq, func() {
		close(lq.quit)
		<-lq.done
	}
}

// add queues a finished call; r.pending counts it until its record is
// handed over.
func (lq *lateQueue) add(cs *callState) {
	lq.r.pending.Add(1)
	lq.mu.Lock()
	empty := lq.head == len(lq.q)
	lq.q = append(lq.q, lateCall{cs: cs, due: time.Now().Add(lq.r.plan.LateWindow)})
	lq.mu.Unlock()
	if empty {
		select {
		case lq.kick <- struct{}{}:
		default:
		}
	}
}

func (lq *lateQueue) run() {
	defer close(lq.done)
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	var batch []*callState
	for {
		var next time.Time
		batch, next = lq.takeDue(batch[:0], time.Now())
		for i, cs := range batch {
			lq.r.handOver(cs)
			batch[i] = nil
		}
		wake := t.C
		if next.IsZero() {
			t.Stop()
		} else {
			t.Reset(max(time.Until(next), lateBatch))
		}
		select {
		case <-lq.quit:
			return
		case <-lq.kick:
		case <-wake:
		}
	}
}

// takeDue appends the calls due by now to batch and returns when the next
// is due (zero: none waits).
func (lq *lateQueue) takeDue(batch []*callState, now time.Time) ([]*callState, time.Time) {
	lq.mu.Lock()
	defer lq.mu.Unlock()
	for lq.head < len(lq.q) && !lq.q[lq.head].due.After(now) {
		batch = append(batch, lq.q[lq.head].cs)
		lq.q[lq.head] = lateCall{}
		lq.head++
	}
	if lq.head == len(lq.q) {
		lq.q, lq.head = lq.q[:0], 0
		return batch, time.Time{}
	}
	// Keep the slice from growing without end while calls keep coming:
	// move the waiting ones to the front once the taken half dominates.
	if lq.head > len(lq.q)/2 {
		n := copy(lq.q, lq.q[lq.head:])
		clear(lq.q[n:])
		lq.q, lq.head = lq.q[:n], 0
	}
	return batch, lq.q[lq.head].due
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
