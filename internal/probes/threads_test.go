package probes

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParsePreempted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, status string
		want         int64
		wantErr      string
	}{
		{name: "a thread's status", status: "Name:\tbench.test\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t812\nnonvoluntary_ctxt_switches:\t37\n", want: 37},
		{name: "zero", status: "nonvoluntary_ctxt_switches:\t0", want: 0},
		{name: "voluntary only", status: "voluntary_ctxt_switches:\t4\n", wantErr: "no nonvoluntary_ctxt_switches: line"},
		{name: "not a number", status: "nonvoluntary_ctxt_switches:\tmany\n", wantErr: `"many" is not a count`},
		{name: "negative", status: "nonvoluntary_ctxt_switches:\t-3\n", wantErr: "is not a count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePreempted([]byte(tt.status))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parsePreempted = %d, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("parsePreempted = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func FuzzParsePreempted(f *testing.F) {
	f.Add([]byte("voluntary_ctxt_switches:\t812\nnonvoluntary_ctxt_switches:\t37\n"))
	f.Add([]byte("nonvoluntary_ctxt_switches:"))
	f.Add([]byte("nonvoluntary_ctxt_switches:\t99999999999999999999\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := parsePreempted(b)
		if err == nil && n < 0 {
			t.Fatalf("parsePreempted = %d with no error", n)
		}
	})
}

// TestProcessByThreadFake reads each thread's schedstat and preemptions
// from a fake /proc: a thread without a status file has them unknown.
func TestProcessByThreadFake(t *testing.T) {
	t.Parallel()
	proc := t.TempDir()
	fakeTasks(t, proc, 100, statLine(100, "server", 'S', 1, 1, 1, 0, 0, 2), map[int]string{100: "1000000000 500000000 4", 105: "3000000 0 1"})
	status := filepath.Join(proc, "100", "task", "100", "status")
	if err := os.WriteFile(status, []byte("voluntary_ctxt_switches:\t3\nnonvoluntary_ctxt_switches:\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := NewProcess(func() []int { return []int{100} })
	p.proc = proc
	got, err := p.SampleTree(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]ThreadTimes{100: {OnCPU: 1, Wait: 0.5, Slices: 4, Preempted: 1}, 105: {OnCPU: 0.003, Slices: 1, Preempted: -1}}
	if len(got.Sched.ByThread) != len(want) {
		t.Fatalf("ByThread = %+v, want %+v", got.Sched.ByThread, want)
	}
	for tid, w := range want {
		if g := got.Sched.ByThread[tid]; g != w {
			t.Errorf("thread %d = %+v, want %+v", tid, g, w)
		}
	}
}

// threads builds a sample of known schedstat from tid → times.
func threads(byThread map[int]ThreadTimes) ProcessSample {
	return ProcessSample{Sched: RunWait{Known: true, ByThread: byThread}}
}

func TestBusyBetween(t *testing.T) {
	t.Parallel()
	ms := func(x float64) float64 { return x / 1000 }
	// A thread of a CPU-bound tool, starved: 12 ms on a CPU in 6 slices
	// of 2 ms, 900 ms waiting, preempted 6 times.
	burn0 := ThreadTimes{OnCPU: 1, Wait: 2, Slices: 100, Preempted: 50}
	burn1 := ThreadTimes{OnCPU: 1 + ms(12), Wait: 2.9, Slices: 106, Preempted: 56}
	// A thread that wakes to handle messages: 4 ms in 200 slices of 20 µs,
	// 600 ms waiting for a CPU after its wake-ups, preempted twice.
	wake0 := ThreadTimes{OnCPU: 0.5, Wait: 1, Slices: 1000, Preempted: 10}
	wake1 := ThreadTimes{OnCPU: 0.5 + ms(4), Wait: 1.6, Slices: 1200, Preempted: 12}
	tests := []struct {
		name          string
		before, after ProcessSample
		want          Busy
	}{
		{name: "a CPU-bound thread beside a waking one", before: threads(map[int]ThreadTimes{1: burn0, 2: wake0}),
			after: threads(map[int]ThreadTimes{1: burn1, 2: wake1}),
			want:  Busy{Known: true, OnCPUS: ms(12), WaitS: 0.9, Slices: 6, Preempted: 6, Threads: 1, MaxSliceMs: 2, LongestSliceMs: 2, AllSlices: 206, AllPreempted: 8}},
		{name: "only waking threads: a sleeping tool, however long they wait", before: threads(map[int]ThreadTimes{2: wake0}),
			after: threads(map[int]ThreadTimes{2: wake1}), want: Busy{Known: true, MaxSliceMs: 0.02, LongestSliceMs: 0.02, AllSlices: 200, AllPreempted: 2}},
		{name: "a thread that began between the readings counts from zero", before: threads(map[int]ThreadTimes{}),
			after: threads(map[int]ThreadTimes{7: {OnCPU: ms(3), Wait: 0.2, Slices: 1, Preempted: 1}}),
			want:  Busy{Known: true, OnCPUS: ms(3), WaitS: 0.2, Slices: 1, Preempted: 1, Threads: 1, LongestSliceMs: 3, AllSlices: 1, AllPreempted: 1}},
		{name: "a thread on a CPU through both readings: one slice of all of it", before: threads(map[int]ThreadTimes{3: {OnCPU: 1, Slices: 5}}),
			after: threads(map[int]ThreadTimes{3: {OnCPU: 1.25, Slices: 5}}), want: Busy{Known: true, LongestSliceMs: 250}},
		{name: "a thread gone counts for nothing", before: threads(map[int]ThreadTimes{1: burn1}),
			after: threads(map[int]ThreadTimes{}), want: Busy{Known: true}},
		{name: "a thread that did not run", before: threads(map[int]ThreadTimes{1: burn1}),
			after: threads(map[int]ThreadTimes{1: burn1}), want: Busy{Known: true}},
		{name: "preemptions unknown", before: threads(map[int]ThreadTimes{2: {Preempted: -1}}),
			after: threads(map[int]ThreadTimes{2: {Slices: 1, OnCPU: ms(0.01), Preempted: -1}}), want: Busy{Known: true, LongestSliceMs: 0.01, AllSlices: 1, AllPreempted: -1}},
		{name: "schedstat unknown", before: ProcessSample{}, after: threads(map[int]ThreadTimes{1: burn1}), want: Busy{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BusyBetween(tt.before, tt.after, WindowSlice)
			if got.Known != tt.want.Known || got.Threads != tt.want.Threads || got.Slices != tt.want.Slices ||
				got.Preempted != tt.want.Preempted || got.AllPreempted != tt.want.AllPreempted || got.AllSlices != tt.want.AllSlices ||
				!near(got.OnCPUS, tt.want.OnCPUS) || !near(got.WaitS, tt.want.WaitS) || !near(got.MaxSliceMs, tt.want.MaxSliceMs) ||
				!near(got.LongestSliceMs, tt.want.LongestSliceMs) {
				t.Errorf("BusyBetween = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// near reports whether two float sums agree to a nanosecond.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestBusyBetweenTIDReuse: a thread id whose slices went down is another
// thread; it counts from zero.
func TestBusyBetweenTIDReuse(t *testing.T) {
	t.Parallel()
	before := threads(map[int]ThreadTimes{9: {OnCPU: 5, Wait: 5, Slices: 5000}})
	after := threads(map[int]ThreadTimes{9: {OnCPU: 0.004, Wait: 0.1, Slices: 2}})
	got := BusyBetween(before, after, WindowSlice)
	if got.Threads != 1 || !near(got.OnCPUS, 0.004) || !near(got.WaitS, 0.1) {
		t.Errorf("BusyBetween = %+v, want the new thread's 4 ms and 100 ms", got)
	}
}

// TestBusyBetweenLoadSlice: over a load, a thread of 0.25 ms slices (a
// starved sleeping server's backlog reached 0.19 ms) is not CPU-bound; in
// a window it is.
func TestBusyBetweenLoadSlice(t *testing.T) {
	t.Parallel()
	before := threads(map[int]ThreadTimes{3: {Slices: 10, Preempted: 5}})
	after := threads(map[int]ThreadTimes{3: {OnCPU: 0.025, Wait: 1, Slices: 110, Preempted: 85}})
	if got := BusyBetween(before, after, LoadSlice); got.Threads != 0 {
		t.Errorf("over a load: %+v, want no CPU-bound thread", got)
	}
	if got := BusyBetween(before, after, WindowSlice); got.Threads != 1 || got.Preempted != 80 {
		t.Errorf("in a window: %+v, want one CPU-bound thread preempted 80 times", got)
	}
}

// TestThreadsBetween: thread by thread, a new thread from zero, one that
// ended nothing, a reused id from zero; the busiest is the longest one
// thread was runnable (on a CPU or waiting).
func TestThreadsBetween(t *testing.T) {
	t.Parallel()
	before := threads(map[int]ThreadTimes{1: {OnCPU: 1, Wait: 0.5, Slices: 100}, 2: {OnCPU: 2, Slices: 50},
		3: {OnCPU: 9, Wait: 9, Slices: 900}, 4: {OnCPU: 7, Slices: 70}})
	after := threads(map[int]ThreadTimes{1: {OnCPU: 1.06, Wait: 0.53, Slices: 110}, 2: {OnCPU: 2.01, Slices: 51},
		3: {OnCPU: 0.02, Slices: 3}, 5: {OnCPU: 0.005, Wait: 0.001, Slices: 1}})
	got, ok := ThreadsBetween(before, after)
	want := ThreadsDelta{OnCPU: 0.06 + 0.01 + 0.02 + 0.005, Wait: 0.03 + 0.001, Busiest: 0.09}
	if !ok || !near(got.OnCPU, want.OnCPU) || !near(got.Wait, want.Wait) || !near(got.Busiest, want.Busiest) {
		t.Errorf("ThreadsBetween = %+v, %v, want %+v", got, ok, want)
	}
	if _, ok := ThreadsBetween(ProcessSample{}, after); ok {
		t.Error("ThreadsBetween with a reading without schedstat: known, want unknown")
	}
}

// TestLeadSliceMs: the longest mean slice of a thread that ran ten slices
// or more and a tenth of the threads' CPU; not a helper thread's two long
// slices, nor a reused thread id's.
func TestLeadSliceMs(t *testing.T) {
	t.Parallel()
	loop0 := ThreadTimes{OnCPU: 1, Slices: 100}
	loop1 := ThreadTimes{OnCPU: 1.8, Slices: 200} // 800 ms in 100 slices of 8 ms
	helper1 := ThreadTimes{OnCPU: 0.1, Slices: 2} // new: two slices of 50 ms
	gc0 := ThreadTimes{OnCPU: 0.2, Slices: 1000}
	gc1 := ThreadTimes{OnCPU: 0.3, Slices: 1200} // 100 ms in 200 slices of 0.5 ms
	for _, tc := range []struct {
		name          string
		before, after ProcessSample
		want          float64
	}{
		{"the event loop leads, not a helper's two long slices", threads(map[int]ThreadTimes{1: loop0, 3: gc0}),
			threads(map[int]ThreadTimes{1: loop1, 2: helper1, 3: gc1}), 8},
		{"a reused id whose CPU went back counts from zero", threads(map[int]ThreadTimes{1: {OnCPU: 5, Slices: 150}}),
			threads(map[int]ThreadTimes{1: {OnCPU: 0.5, Slices: 160}}), 0.5 / 160 * 1000},
		{"no thread ran ten slices", threads(map[int]ThreadTimes{}), threads(map[int]ThreadTimes{2: helper1}), 0},
		{"long slices under a tenth of the CPU do not lead", threads(map[int]ThreadTimes{1: loop0, 4: {}}),
			threads(map[int]ThreadTimes{1: loop1, 4: {OnCPU: 0.085, Slices: 10}}), 8},
		{"a reused id whose wait went back counts from zero", threads(map[int]ThreadTimes{1: {OnCPU: 0.5, Wait: 9, Slices: 150}}),
			threads(map[int]ThreadTimes{1: {OnCPU: 0.6, Wait: 1, Slices: 160}}), 0.6 / 160 * 1000},
		{"a reused id whose preemptions went back counts from zero", threads(map[int]ThreadTimes{1: {OnCPU: 0.5, Slices: 150, Preempted: 100}}),
			threads(map[int]ThreadTimes{1: {OnCPU: 0.6, Slices: 160, Preempted: 5}}), 0.6 / 160 * 1000},
		{"schedstat unknown", ProcessSample{}, threads(map[int]ThreadTimes{1: loop1}), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LeadSliceMs(tc.before, tc.after); !near(got, tc.want) {
				t.Errorf("LeadSliceMs = %v, want %v", got, tc.want)
			}
		})
	}
}
