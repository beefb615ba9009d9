package probes

import (
	"math"
	"testing"
)

// reading is a process reading of the given threads, with schedstat.
func reading(threads map[int]ThreadTimes) ProcessSample {
	return ProcessSample{Sched: RunWait{Known: true, ByThread: threads}}
}

// computing is a thread that ran on slices of 1 ms, each preempted;
// serving one that ran 0.05 ms slices and blocked of its own accord.
func computing(onCPU float64) ThreadTimes {
	n := int64(math.Round(onCPU * 1000))
	return ThreadTimes{OnCPU: onCPU, Wait: onCPU / 10, Slices: n, Preempted: n}
}

func serving(onCPU float64) ThreadTimes {
	return ThreadTimes{OnCPU: onCPU, Slices: int64(math.Round(onCPU * 20000))}
}

// ledgerCase is readings added to a ledger, and what it should say the
// threads did: the CPU-bound threads' time and number (LoadSlice), and
// the run-queue wait of every thread.
type ledgerCase struct {
	name        string
	readings    []ProcessSample
	wantBusy    float64
	wantThreads int
	wantWait    float64
}

// ledgerCases are the cases where two readings alone say less or more
// than the ledger.
func ledgerCases() []ledgerCase {
	return []ledgerCase{
		{
			// The replaced stdio server of mcp-go's seed 105: the first
			// server computed, a disconnect ended it, and the second served
			// a few calls before the load ended. The two end readings
			// alone read the second server's threads only.
			name: "a server replaced",
			readings: []ProcessSample{
				reading(map[int]ThreadTimes{100: computing(0.5), 101: serving(0.01)}),
				reading(map[int]ThreadTimes{100: computing(2.0), 101: serving(0.03)}),
				reading(map[int]ThreadTimes{100: computing(3.5), 101: serving(0.05)}),
				reading(map[int]ThreadTimes{200: serving(0.01), 201: serving(0.002)}),
				reading(map[int]ThreadTimes{200: serving(0.02), 201: serving(0.004)}),
			},
			wantBusy: 3.0, wantThreads: 1, wantWait: 0.3,
		},
		{
			name: "one server throughout",
			readings: []ProcessSample{
				reading(map[int]ThreadTimes{1: computing(1), 2: serving(0.01)}),
				reading(map[int]ThreadTimes{1: computing(2), 2: serving(0.02)}),
				reading(map[int]ThreadTimes{1: computing(4), 2: serving(0.03)}),
			},
			wantBusy: 3, wantThreads: 1, wantWait: 0.3,
		},
		{
			// Two readings that overlapped: the one added last read thread
			// 1 before the one added first did. It adds nothing.
			name: "a reading added out of order",
			readings: []ProcessSample{
				reading(map[int]ThreadTimes{1: computing(1)}),
				reading(map[int]ThreadTimes{1: computing(3)}),
				reading(map[int]ThreadTimes{1: computing(2.5)}),
				reading(map[int]ThreadTimes{1: computing(4)}),
			},
			wantBusy: 3, wantThreads: 1, wantWait: 0.3,
		},
		{
			// Thread 7 ended (missing from a reading) and a new thread took
			// its id: the new one counts from zero, the old keeps its sum.
			name: "a thread id reused",
			readings: []ProcessSample{
				reading(map[int]ThreadTimes{7: computing(1), 8: serving(0.01)}),
				reading(map[int]ThreadTimes{7: computing(2), 8: serving(0.02)}),
				reading(map[int]ThreadTimes{8: serving(0.03)}),
				reading(map[int]ThreadTimes{7: computing(0.5), 8: serving(0.04)}),
			},
			wantBusy: 1.5, wantThreads: 2, wantWait: 0.15,
		},
		{
			// A thread missing from one reading (not read) and back with
			// its counts gone on: it goes on from its last reading.
			name: "a thread missing from one reading",
			readings: []ProcessSample{
				reading(map[int]ThreadTimes{1: computing(1)}),
				reading(map[int]ThreadTimes{}),
				reading(map[int]ThreadTimes{1: computing(2)}),
			},
			wantBusy: 1, wantThreads: 1, wantWait: 0.1,
		},
		{
			// Readings without schedstat add nothing; the first with it
			// starts the sums.
			name: "readings without schedstat",
			readings: []ProcessSample{
				{Sched: RunWait{Err: "no schedstat"}},
				reading(map[int]ThreadTimes{1: computing(1)}),
				{Sched: RunWait{Err: "no schedstat"}},
				reading(map[int]ThreadTimes{1: computing(1.5)}),
			},
			wantBusy: 0.5, wantThreads: 1, wantWait: 0.05,
		},
	}
}

// TestThreadLedger: what the ledger says the threads did from its first
// reading to its last, set against an empty reading.
func TestThreadLedger(t *testing.T) {
	t.Parallel()
	for _, tt := range ledgerCases() {
		t.Run(tt.name, func(t *testing.T) {
			l := NewThreadLedger(LoadSlice)
			for _, r := range tt.readings {
				l.Add(r)
			}
			got := l.Sample()
			b := BusyBetween(EmptySample(), got, LoadSlice)
			if math.Abs(b.OnCPUS-tt.wantBusy) > 1e-9 || b.Threads != tt.wantThreads {
				t.Errorf("CPU-bound threads: %d, %.3f s on a CPU; want %d, %.3f s", b.Threads, b.OnCPUS, tt.wantThreads, tt.wantBusy)
			}
			wait, ok := WaitBetween(EmptySample(), got)
			if !ok || math.Abs(wait-tt.wantWait) > 1e-9 {
				t.Errorf("run-queue wait %.3f s (known %v); want %.3f s", wait, ok, tt.wantWait)
			}
		})
	}
}

// TestThreadLedgerReplacedLeadSlice: the lead slice of a load whose
// computing server was replaced by one that served a few calls is the
// first server's, as the two end readings alone do not say.
func TestThreadLedgerReplacedLeadSlice(t *testing.T) {
	t.Parallel()
	first := reading(map[int]ThreadTimes{100: computing(0.5), 101: serving(0.01)})
	mid := reading(map[int]ThreadTimes{100: computing(3.5), 101: serving(0.05)})
	last := reading(map[int]ThreadTimes{200: serving(0.02), 201: serving(0.004)})
	l := NewThreadLedger(LoadSlice)
	for _, r := range []ProcessSample{first, mid, last} {
		l.Add(r)
	}
	if got := LeadSliceMs(EmptySample(), l.Sample()); math.Abs(got-1) > 1e-9 {
		t.Errorf("lead slice %v ms from the ledger; want 1 ms, the computing server's", got)
	}
	if got := LeadSliceMs(first, last); got >= 0.3 {
		t.Errorf("lead slice %v ms from the end readings; want under 0.3 ms (the case the ledger is for)", got)
	}
}

// TestThreadLedgerFolds: past maxLedgerThreads the ended threads are
// folded, and what the CPU-bound threads and the others did stays.
func TestThreadLedgerFolds(t *testing.T) {
	t.Parallel()
	l := NewThreadLedger(LoadSlice)
	l.Add(reading(map[int]ThreadTimes{}))
	// Servers of two threads each, one computing and one serving, each
	// read twice and then gone: three times the bound.
	const servers = 3 * maxLedgerThreads / 2
	for i := range servers {
		a, b := 2*i+1, 2*i+2
		l.Add(reading(map[int]ThreadTimes{a: computing(0.001), b: serving(0.0001)}))
		l.Add(reading(map[int]ThreadTimes{a: computing(0.002), b: serving(0.0002)}))
	}
	if n := len(l.threads); n > maxLedgerThreads {
		t.Fatalf("%d threads kept apart; want at most %d", n, maxLedgerThreads)
	}
	s := l.Sample()
	bs := BusyBetween(EmptySample(), s, LoadSlice)
	if want := servers * 0.002; math.Abs(bs.OnCPUS-want) > 1e-6 {
		t.Errorf("CPU-bound threads' CPU %.6f s; want %.6f s", bs.OnCPUS, want)
	}
	if want := servers * 0.0022; math.Abs(s.Sched.OnCPUSeconds-want) > 1e-6 {
		t.Errorf("every thread's CPU %.6f s; want %.6f s", s.Sched.OnCPUSeconds, want)
	}
}

// TestThreadLedgerUnknown: without a reading that had schedstat the
// ledger's sample is unknown and says why.
func TestThreadLedgerUnknown(t *testing.T) {
	t.Parallel()
	var l ThreadLedger
	l.Add(ProcessSample{Sched: RunWait{Err: "no schedstat in /proc"}})
	s := l.Sample()
	if s.Sched.Known || s.Sched.Err != "no schedstat in /proc" {
		t.Errorf("sample %+v; want unknown, with the first reading's reason", s.Sched)
	}
	if b := BusyBetween(EmptySample(), s, LoadSlice); b.Known {
		t.Errorf("busy %+v; want unknown", b)
	}
}
