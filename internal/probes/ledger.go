package probes

import "time"

// Threads of servers that were replaced (issue 25). On stdio a
// disconnect ends a server and the next call starts another, so two
// readings of the process probe taken a load apart may share no thread:
// set against each other (BusyBetween, LeadSliceMs, WaitBetween), they
// judged the load by the last server's threads alone, from its start. A
// run whose last disconnect came near the load's end was judged by a
// server that had served a few calls: mcp-go's leaking server, whose
// steps ran in slices of 1 ms, read "short time slices only (the longest
// 0.23 ms)" and was not_observable (docs/decisions.md). A ThreadLedger
// adds each reading to the one before it, thread by thread, so a thread
// that ended, with its server, keeps what it did up to its last reading.

// maxLedgerThreads bounds the threads a ledger keeps apart. Past it the
// threads missing from the newest reading are folded into two sums, one
// of threads whose mean slice reached the ledger's long slice and one of
// the others: a sum of threads whose mean slices were all at least (or
// all under) a length has a mean slice that is too, so the split of
// CPU-bound threads from the others that BusyBetween makes stays as it
// was; only their number shrinks.
const maxLedgerThreads = 4096

// Keys of the folded sums in the ledger's sample, and the first key of a
// thread set apart when its id was taken by a new thread: below every
// thread id.
const (
	foldedLongKey  = -1
	foldedShortKey = -2
	firstRetired   = -3
)

// ThreadLedger sums what each thread of the watched trees did from a
// first reading on (Add), so that what threads did between that reading
// and the latest, those that ended between them included, can be read as
// one sample (Sample) and set against an empty one. The zero value is
// ready; it is not safe for concurrent use.
type ThreadLedger struct {
	// long is the mean slice that sorts a folded thread (LoadSlice when
	// zero).
	long    time.Duration
	started bool
	// err is the first reason a reading lacked schedstat, while none had it.
	err     string
	threads map[int]*ledgerThread
	latest  int // the index of the newest reading
	retired int // the next key of a thread whose id was reused
	folded  [2]ThreadTimes
}

// ledgerThread is one thread's last reading and its sum since the first.
type ledgerThread struct {
	last, sum ThreadTimes
	seen      int // the index of the last reading that had it
}

// NewThreadLedger returns a ledger that sorts the threads it folds by a
// mean slice of long.
func NewThreadLedger(long time.Duration) *ThreadLedger {
	return &ThreadLedger{long: long}
}

// Add adds a reading. The first reading with schedstat starts the sums;
// one without schedstat adds nothing. A thread new since the reading
// before counts from zero; one missing from it keeps its sum, and goes
// on from its last reading if it comes back. A thread whose counts went
// back is a new thread with a reused id when the reading before lacked
// it (its old thread had ended), and otherwise a reading of it taken
// before the last one added (two readings that overlapped), which adds
// nothing.
func (l *ThreadLedger) Add(ps ProcessSample) {
	if !ps.Sched.Known {
		if !l.started && l.err == "" {
			l.err = ps.Sched.Err
		}
		return
	}
	if !l.started {
		l.started, l.threads = true, make(map[int]*ledgerThread, len(ps.Sched.ByThread))
		for tid, a := range ps.Sched.ByThread {
			l.threads[tid] = &ledgerThread{last: a, sum: ThreadTimes{}}
		}
		return
	}
	l.latest++
	for tid, a := range ps.Sched.ByThread {
		t := l.threads[tid]
		switch {
		case t == nil:
			t = &ledgerThread{}
			l.threads[tid] = t
		case wentBack(t.last, a) && t.seen == l.latest-1:
			t.seen = l.latest // read before the last reading added
			continue
		case wentBack(t.last, a):
			l.retire(tid, t)
			t = &ledgerThread{}
			l.threads[tid] = t
		}
		t.sum = addTimes(t.sum, subTimes(a, t.last))
		t.last, t.seen = a, l.latest
	}
	if len(l.threads) > maxLedgerThreads {
		l.fold()
	}
}

// wentBack reports whether reading a cannot follow b in one thread.
func wentBack(b, a ThreadTimes) bool {
	return b.Slices > a.Slices || b.OnCPU > a.OnCPU || b.Wait > a.Wait || (a.Preempted >= 0 && b.Preempted > a.Preempted)
}

// retire keeps the sum of a thread whose id a new thread took, under a
// key of its own.
func (l *ThreadLedger) retire(tid int, t *ledgerThread) {
	delete(l.threads, tid)
	l.threads[firstRetired-l.retired] = &ledgerThread{sum: t.sum, seen: t.seen}
	l.retired++
}

// fold folds the threads missing from the newest reading into the two
// sums (maxLedgerThreads).
func (l *ThreadLedger) fold() {
	long := l.long
	if long <= 0 {
		long = LoadSlice
	}
	for key, t := range l.threads {
		if t.seen == l.latest {
			continue
		}
		i := 1
		if t.sum.Slices > 0 && t.sum.OnCPU/float64(t.sum.Slices) >= long.Seconds() {
			i = 0
		}
		l.folded[i] = addTimes(l.folded[i], t.sum)
		delete(l.threads, key)
	}
}

// Sample returns what the threads did from the first reading to the
// newest as one reading, to set against an empty one (EmptySample): each
// thread's sum, by its id, with those that ended. Sched.Known is false
// until a reading had schedstat.
func (l *ThreadLedger) Sample() ProcessSample {
	if !l.started {
		return ProcessSample{Sched: RunWait{Err: l.err}}
	}
	rw := RunWait{Known: true, ByThread: make(map[int]ThreadTimes, len(l.threads)+2)}
	put := func(key int, t ThreadTimes) {
		rw.ByThread[key] = t
		rw.OnCPUSeconds += t.OnCPU
		rw.WaitSeconds += t.Wait
		rw.Slices += t.Slices
	}
	for key, t := range l.threads {
		put(key, t.sum)
	}
	for i, key := range [...]int{foldedLongKey, foldedShortKey} {
		if f := l.folded[i]; f.Slices > 0 || f.OnCPU > 0 {
			put(key, f)
		}
	}
	return ProcessSample{Sched: rw}
}

// EmptySample is a reading with schedstat and no thread: what a ledger's
// Sample is set against.
func EmptySample() ProcessSample {
	return ProcessSample{Sched: RunWait{Known: true}}
}

// subTimes is what a thread did from reading b to reading a (b zero: from
// its start); preemptions -1 when either is unknown.
func subTimes(a, b ThreadTimes) ThreadTimes {
	d := ThreadTimes{OnCPU: max(a.OnCPU-b.OnCPU, 0), Wait: max(a.Wait-b.Wait, 0), Slices: max(a.Slices-b.Slices, 0), Preempted: -1}
	if a.Preempted >= 0 && b.Preempted >= 0 {
		d.Preempted = max(a.Preempted-b.Preempted, 0)
	}
	return d
}

// addTimes adds two threads' times; preemptions -1 when either is unknown.
func addTimes(a, b ThreadTimes) ThreadTimes {
	return ThreadTimes{OnCPU: a.OnCPU + b.OnCPU, Wait: a.Wait + b.Wait, Slices: a.Slices + b.Slices, Preempted: addKnown(a.Preempted, b.Preempted)}
}
