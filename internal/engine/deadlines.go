package engine

import (
	"container/heap"
	"sync"
	"sync/atomic"
	"time"
)

// One deadline structure for the run's timers (issue 28). Every call has
// an idle and a cap timeout, and a fault drawn for it may wait for a
// moment after the send; thousands of them wait at once at a high rate.
// They all go into one heap ordered by due time, driven by one goroutine
// that sleeps until the earliest and starts each callback on a goroutine
// of its own when it falls due (a callback may block: a cancel POSTed to
// a 2025 session, a fault's Act).
//
// The point is the wake-up. Go's runtime timers wake an idle process
// through epoll_wait, whose timeout is in whole milliseconds: a timer due
// in 0.3 ms fires about 1 ms after it was armed, so a timeout or fault is
// up to a millisecond late for nothing. On Linux the driver also sleeps on
// a timerfd armed to the earliest due time with nanosecond resolution
// (deadlines_linux.go), whose expiry wakes the netpoller at once; the
// runtime timer stays armed beside it for a busy process, which checks its
// timers at every scheduling point but its netpoller only now and then.
// Whichever wakes the driver first runs what is due.

// deadline is one callback waiting in the heap.
type deadline struct {
	ds *deadlines
	at time.Time
	f  func()
	i  int // its index in the heap; -1 when not in it
}

// Stop takes the deadline out of the heap; false when it had fired or
// was stopped already (as time.Timer.Stop).
func (d *deadline) Stop() bool { return d.ds.stop(d) }

// Reset moves the deadline to dur from now, whether or not it had fired
// or was stopped; true when it was still waiting (as time.Timer.Reset).
func (d *deadline) Reset(dur time.Duration) bool { return d.ds.reset(d, time.Now().Add(dur)) }

// timerHandle is what a call keeps of a timer: a *deadline, or a
// *time.Timer for a runner without the deadline structure (tests that
// build a runner by hand).
type timerHandle interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// afterFunc runs f on its own goroutine d from now, from the run's
// deadline structure when it has one.
func (r *runner) afterFunc(d time.Duration, f func()) timerHandle {
	if r.deadlines == nil {
		return time.AfterFunc(d, f)
	}
	return r.deadlines.add(time.Now().Add(d), f)
}

// deadlines is the heap and its driver.
type deadlines struct {
	mu    sync.Mutex
	h     deadlineHeap
	due   []*deadline // reused by the driver
	kick  chan struct{}
	quit  chan struct{}
	done  chan struct{}
	waker waker // the precise wake; nil: the runtime timer alone
	// armed is when the driver will wake next (zero: not before a poke).
	// A deadline added at or after it needs no poke: the driver wakes at
	// armed anyway and then sleeps until the earliest deadline. Most
	// deadlines are such (a call's timeouts fall due after those of the
	// calls before it, and are mostly stopped before they fire), so a
	// call costs no wake-up of the driver, nor a re-arming of its timers.
	armed time.Time
	wakes atomic.Int64 // how often the driver woke (tests)
}

// waker arms a wake-up of the driver at a moment, with a resolution finer
// than the runtime timer's when the process is idle.
type waker interface {
	// arm wakes C at d from now (d > 0), replacing the last arming.
	arm(d time.Duration)
	// C receives a value when an arming expires.
	C() <-chan struct{}
	close()
}

// startDeadlines starts the driver; precise asks for the precise wake
// where the system has one. stop ends the driver: what is still waiting
// never fires.
func startDeadlines(precise bool) (*deadlines, func()) {
	ds := &deadlines{kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	if precise {
		ds.waker = newWaker()
	}
	go ds.drive()
	return ds, func() {
		close(ds.quit)
		<-ds.done
		if ds.waker != nil {
			ds.waker.close()
		}
	}
}

// add puts f in the heap, due at at.
func (ds *deadlines) add(at time.Time, f func()) *deadline {
	d := &deadline{ds: ds, f: f, i: -1}
	ds.reset(d, at)
	return d
}

func (ds *deadlines) stop(d *deadline) bool {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if d.i < 0 {
		return false
	}
	heap.Remove(&ds.h, d.i)
	return true
}

// reset moves d to at, putting it back in the heap when it had fired or
// was stopped; it reports whether d was waiting.
func (ds *deadlines) reset(d *deadline, at time.Time) bool {
	ds.mu.Lock()
	waiting := d.i >= 0
	d.at = at
	if waiting {
		heap.Fix(&ds.h, d.i)
	} else {
		heap.Push(&ds.h, d)
	}
	sooner := d.i == 0 && (ds.armed.IsZero() || at.Before(ds.armed))
	ds.mu.Unlock()
	if sooner {
		ds.poke()
	}
	return waiting
}

// poke tells the driver that a deadline falls due before its wake.
func (ds *deadlines) poke() {
	select {
	case ds.kick <- struct{}{}:
	default:
	}
}

// drive runs what is due and sleeps until the next deadline, a poke or
// the end.
func (ds *deadlines) drive() {
	defer close(ds.done)
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	var wake <-chan struct{}
	if ds.waker != nil {
		wake = ds.waker.C()
	}
	for {
		ds.wakes.Add(1)
		next, ok := ds.runDue()
		if ok {
			wait := max(time.Until(next), time.Nanosecond)
			t.Reset(wait)
			if ds.waker != nil {
				ds.waker.arm(wait)
			}
		} else {
			t.Stop()
		}
		select {
		case <-ds.quit:
			return
		case <-ds.kick:
		case <-t.C:
		case <-wake:
		}
	}
}

// runDue starts every callback due by now and returns when the next one
// is due; false when none waits.
func (ds *deadlines) runDue() (time.Time, bool) {
	ds.mu.Lock()
	now := time.Now()
	due := ds.due[:0]
	for len(ds.h) > 0 && !ds.h[0].at.After(now) {
		due = append(due, heap.Pop(&ds.h).(*deadline))
	}
	var next time.Time
	ok := len(ds.h) > 0
	if ok {
		next = ds.h[0].at
	}
	ds.armed = next
	ds.mu.Unlock()
	for i, d := range due {
		go d.f()
		due[i] = nil
	}
	ds.due = due[:0]
	return next, ok
}

// deadlineHeap orders deadlines by due time (container/heap).
type deadlineHeap []*deadline

func (h deadlineHeap) Len() int           { return len(h) }
func (h deadlineHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h deadlineHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].i, h[j].i = i, j
}

func (h *deadlineHeap) Push(x any) {
	d := x.(*deadline)
	d.i = len(*h)
	*h = append(*h, d)
}

func (h *deadlineHeap) Pop() any {
	old := *h
	n := len(old) - 1
	d := old[n]
	old[n] = nil
	d.i = -1
	*h = old[:n]
	return d
}
