package client

import (
	"sync/atomic"
	"time"
)

// Deep work handed over: a goroutine that waits a long time (an open
// call's, between its events) keeps the stack its deepest work ever
// needed until garbage collections halve it, one halving each, and a
// load whose receive path allocates nothing sees few collections. A
// message's delivery is deep (the call's observer: the engine's records,
// faults and histograms, more than 8 KiB of frames with an Event copied
// into each), so an HTTP/2 stream's goroutine hands each step of its
// reading to one of a few goroutines kept for it and waits for it there,
// in a small frame: 50,000 open calls then hold 4 KiB of stack each, not
// 16 KiB (docs/performance.md). The waiting goroutine does nothing
// meanwhile, so the work is done in the same order as on its own.

// deepTask is work handed to a deep goroutine.
type deepTask interface{ runDeep() }

type deepJob struct {
	task deepTask
	done chan struct{} // a token when the task ran
}

const (
	// maxDeep bounds the deep goroutines; past it, a task waits for one
	// for up to deepWait, then runs on its caller's goroutine.
	maxDeep  = 256
	deepWait = 50 * time.Millisecond
	// deepIdle is how long a deep goroutine waits for work before it ends.
	deepIdle = 10 * time.Second
)

var (
	deepWork  = make(chan deepJob) // to an idle deep goroutine
	deepCount atomic.Int32
)

// runDeep runs task on a deep goroutine and returns when it ran; done is
// the caller's own channel (buffered, one slot), reused from task to task.
//
// A task may wait: for the rest of a message its stream received in part,
// or for an answer to a server's request to be sent. So a caller that
// finds every deep goroutine busy waits for one only for deepWait, then
// runs the task itself, at the cost of its own stack: a server that stalls
// hundreds of streams mid-message holds their deep goroutines, never the
// other calls' messages.
func runDeep(task deepTask, done chan struct{}) {
	job := deepJob{task: task, done: done}
	select {
	case deepWork <- job:
	default:
		if deepCount.Add(1) <= maxDeep {
			go deepWorker(job)
			break
		}
		deepCount.Add(-1)
		timer := time.NewTimer(deepWait)
		select {
		case deepWork <- job:
			timer.Stop()
		case <-timer.C:
			task.runDeep()
			return
		}
	}
	<-done
}

func deepWorker(job deepJob) {
	defer deepCount.Add(-1)
	idle := time.NewTimer(deepIdle)
	defer idle.Stop()
	for {
		job.task.runDeep()
		job.done <- struct{}{}
		idle.Reset(deepIdle)
		select {
		case job = <-deepWork:
		case <-idle.C:
			return
		}
	}
}
