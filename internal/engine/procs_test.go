package engine

import (
	"os"
	"runtime"
	"slices"
	"testing"
	"time"
)

// fakeProcs drives a procAdapter with a CPU use per window and records
// what it set.
type fakeProcs struct {
	cpu, stalls time.Duration
	sets        []int
}

func (f *fakeProcs) adapter() *procAdapter {
	return &procAdapter{cpu: func() (time.Duration, bool) { return f.cpu, true },
		stalls: func() time.Duration { return f.stalls }, set: func(n int) { f.sets = append(f.sets, n) }}
}

// TestProcAdapter: the load starts on one P; the default comes back when
// the use averages procUp over procUpWindows windows (a single busy window
// is not enough) or the process keeps stalling (procStallsRaise stalled
// windows of procStallSpan, or procStallRaise of stalls in them: one short
// stall now and then is not enough), and goes again only after procStay
// and procDownWindows quiet windows (procStallQuiet once it kept
// stalling); stop restores the default. A use of -1 is a quiet window with
// a stall of 10 ms, -2 one with a stall longer than procStallRaise, -3 one
// of 30 ms and -4 one of 20 ms.
func TestProcAdapter(t *testing.T) {
	for _, tc := range []struct {
		name string
		uses []float64 // CPUs used in each window, in turn
		want []int     // GOMAXPROCS set, in order (0: the default)
		one  bool      // on one P at the end
	}{
		{name: "quiet", uses: []float64{0.1, 0.05, 0.2, 0.1}, want: []int{1}, one: true},
		{name: "one busy window", uses: []float64{0.1, 1, 0.1, 0.1}, want: []int{1}, one: true},
		{name: "busy", uses: []float64{0.1, 0.6, 0.6, 0.6}, want: []int{1, 0}},
		{name: "busy then quiet, too soon", uses: append([]float64{0.9, 0.9, 0.9}, repeat(0.1, 40)...), want: []int{1, 0}},
		{name: "busy then quiet for long", uses: append([]float64{0.9, 0.9, 0.9}, repeat(0.1, 60)...), want: []int{1, 0, 1}, one: true},
		{name: "busy then middling", uses: append([]float64{0.9, 0.9, 0.9}, repeat(0.4, 100)...), want: []int{1, 0}},
		{name: "a stall", uses: []float64{0.1, -1, 0.1}, want: []int{1}, one: true},
		{name: "stalls now and then", uses: slices.Repeat(append([]float64{-1}, repeat(0.1, 15)...), 10), want: []int{1}, one: true},
		{name: "two stalls in a second", uses: []float64{0.1, -1, 0.1, 0.1, -1, 0.1}, want: []int{1}, one: true},
		{name: "three stalls in a second", uses: []float64{0.1, -1, 0.1, -1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, -1, 0.1}, want: []int{1, 0}},
		{name: "three stalls in over a second", uses: append(append([]float64{0.1, -1, 0.1, -1}, repeat(0.1, 7)...), -1, 0.1), want: []int{1}, one: true},
		{name: "two stalls of 30 ms in a second", uses: []float64{0.1, -3, 0.1, -3, 0.1}, want: []int{1, 0}},
		{name: "two stalls of 20 ms in a second", uses: []float64{0.1, -4, 0.1, -4, 0.1}, want: []int{1}, one: true},
		{name: "one long stall", uses: []float64{0.1, -2, 0.1}, want: []int{1, 0}},
		{name: "stalls, then quiet for a while", uses: append([]float64{0.1, -1, -1, -1}, repeat(0.1, 100)...), want: []int{1, 0}},
		{name: "stalls, then quiet for long", uses: append([]float64{0.1, -1, -1, -1}, repeat(0.1, procStallQuiet)...), want: []int{1, 0, 1}, one: true},
		{name: "stalls again and again", uses: slices.Repeat(append([]float64{-1, -1, -1}, repeat(0.1, 60)...), 10), want: []int{1, 0}},
		{name: "stalls, then quiet for long, then a stall", uses: append(append([]float64{0.1, -1, -1, -1}, repeat(0.1, procStallQuiet)...), -1, 0.1), want: []int{1, 0, 1}, one: true},
		{name: "busy, a stall on the default, then quiet", uses: append([]float64{0.9, 0.9, 0.9, -1}, repeat(0.1, 60)...), want: []int{1, 0, 1}, one: true},
		{name: "busy, stalls on the default, then quiet for a while", uses: append([]float64{0.9, 0.9, 0.9, -1, -1, -1}, repeat(0.1, 100)...), want: []int{1, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeProcs{}
			pa := f.adapter()
			now := time.Unix(1000, 0)
			pa.tick(now)
			for _, u := range tc.uses {
				pa.tick(now.Add(procWindow / 2)) // too soon: no reading
				now = now.Add(procWindow)
				switch u {
				case -1:
					f.stalls += 10 * time.Millisecond
					u = 0.1
				case -2:
					f.stalls += procStallRaise + 10*time.Millisecond
					u = 0.1
				case -3:
					f.stalls += 30 * time.Millisecond
					u = 0.1
				case -4:
					f.stalls += 20 * time.Millisecond
					u = 0.1
				}
				f.cpu += time.Duration(u * float64(procWindow))
				pa.tick(now)
			}
			if !slices.Equal(f.sets, tc.want) || pa.one != tc.one {
				t.Errorf("set %v, one P at the end %v; want %v, %v", f.sets, pa.one, tc.want, tc.one)
			}
			procsHeld.Store(true)
			pa.stop()
			if pa.one || procsHeld.Load() || tc.one && f.sets[len(f.sets)-1] != 0 {
				t.Errorf("after stop: set %v, one P %v, held %v; want the default back and the process free", f.sets, pa.one, procsHeld.Load())
			}
		})
	}
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestProcAdapterLeavesUsersChoice: a GOMAXPROCS in the environment is
// left alone, and of two runs at once only the first adapts.
func TestProcAdapterLeavesUsersChoice(t *testing.T) {
	t.Setenv("GOMAXPROCS", "2")
	if pa := newProcAdapter(func() time.Duration { return 0 }); pa != nil {
		t.Error("an adapter although GOMAXPROCS is set in the environment")
	}
	os.Unsetenv("GOMAXPROCS") // t.Setenv restores it
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: nothing to adapt")
	}
	if _, ok := processCPU(); !ok {
		t.Skip("the process's CPU time cannot be read here: nothing to adapt by")
	}
	none := func() time.Duration { return 0 }
	first := newProcAdapter(none)
	if first == nil {
		t.Fatal("no adapter without GOMAXPROCS in the environment")
	}
	if second := newProcAdapter(none); second != nil {
		t.Error("a second adapter while the first runs")
	}
	first.stop()
	third := newProcAdapter(none)
	if third == nil {
		t.Error("no adapter once the first stopped")
	}
	third.stop()
}
