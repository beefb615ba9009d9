package report

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// packingRun is 90 s of calls at 40/s with throttling from the 30th second
// on (every 5th call) and answers after 5 ms to 2 s; one call in 20 takes
// 20 to 40 s, so its record comes long after its second was packed; some
// calls are retries, counted by their answer only. Each record comes with
// its completion time.
func packingRun(rng *rand.Rand) (recs []*results.Record, done []time.Duration) {
	for i := range 90 * 40 {
		at := time.Duration(i)*time.Second/40 + time.Duration(rng.IntN(20))*time.Millisecond
		took := 5*time.Millisecond + time.Duration(rng.Int64N(int64(2*time.Second)))
		if rng.IntN(20) == 0 {
			took = 20*time.Second + time.Duration(rng.Int64N(int64(20*time.Second)))
		}
		r := call(at, results.OK, resp(float64(took)/float64(time.Millisecond)))
		if at >= 30*time.Second && i%5 == 4 {
			r = call(at, results.Throttled, resp(1), throttle("http_429", 0))
			took = time.Millisecond
		}
		if i%17 == 3 {
			r.Retry = "throttled"
		}
		recs, done = append(recs, r), append(done, at+took)
	}
	return recs, done
}

// naiveWindows is the timeline's windows computed the plain way: each
// count in the window of its 10 ms slot, counted from the slot of the
// earliest scheduled call that is not a retry.
func naiveWindows(recs []*results.Record) []window {
	slotOf := func(t time.Time) int64 { return floorDiv(t.UnixNano(), slotNs) }
	var anchor int64
	seen := false
	for _, r := range recs {
		if r.Retry == "" && (!seen || slotOf(r.Scheduled) < anchor) {
			anchor, seen = slotOf(r.Scheduled), true
		}
	}
	var out []window
	at := func(t time.Time) *window {
		w := floorDiv(slotOf(t)-anchor, slotsPerWindow)
		for int64(len(out)) <= w {
			out = append(out, window{})
		}
		return &out[w]
	}
	for _, r := range recs {
		answered := r.Scheduled.Add(time.Duration(r.ResponseUs) * time.Microsecond)
		if r.Retry != "" {
			if r.Outcome == results.OK {
				at(answered).ok++
			}
			continue
		}
		w := at(r.Scheduled)
		w.scheduled++
		if r.Outcome == results.Throttled {
			w.throttled++
		}
		if r.Outcome == results.OK {
			at(answered).ok++
		}
	}
	return out
}

func TestTimelinePackingKeepsEveryCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	recs, done := packingRun(rng)
	order := make([]int, len(recs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(done[a], done[b]) })
	byDone := make([]*results.Record, len(recs))
	for i, k := range order {
		byDone[i] = recs[k]
	}
	reversed := slices.Clone(byDone)
	slices.Reverse(reversed)
	shuffled := slices.Clone(recs)
	rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
	firstLast := append(slices.Clone(byDone[1:]), byDone[0])
	// 1.37 s before the first call: the windows' edges move by 37 slots
	// once every second is packed.
	before := call(-1370*time.Millisecond, results.OK, resp(10))
	tests := []struct {
		name string
		recs []*results.Record
	}{
		{"completion order", byDone},
		{"scheduled order", recs},
		{"reversed", reversed},
		{"shuffled", shuffled},
		{"the first scheduled call last", firstLast},
		{"a call before the first, last", append(slices.Clone(byDone), before)},
		{"a call before the first, first", append([]*results.Record{before}, byDone...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := naiveWindows(tt.recs)
			packing := timeline{sweepEvery: 8}
			kept := timeline{sweepEvery: 1 << 30} // never sweeps
			for _, r := range tt.recs {
				packing.add(r)
				kept.add(r)
			}
			if len(packing.packed) == 0 || packing.unpacked == 0 {
				t.Fatalf("packed %d seconds, unpacked %d: the test packs nothing or lands nothing in a packed second",
					len(packing.packed), packing.unpacked)
			}
			if len(kept.packed) != 0 {
				t.Fatalf("the unpacked timeline packed %d seconds", len(kept.packed))
			}
			for name, tl := range map[string]*timeline{"packing": &packing, "never packing": &kept} {
				if got := tl.windows(); !slices.Equal(got, want) {
					t.Errorf("%s timeline: %d windows, want %d; first difference %s", name, len(got), len(want), firstDiff(got, want))
				}
			}
		})
	}
}

// firstDiff names the first window in which got and want differ.
func firstDiff(got, want []window) string {
	for i := range max(len(got), len(want)) {
		var g, w window
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("window %d: got %+v, want %+v", i, g, w)
		}
	}
	return "none"
}

// TestSummaryUnchangedByPacking: an Aggregator that packs its timeline
// after every record builds the summary of one that never packs, whatever
// the order of the records.
func TestSummaryUnchangedByPacking(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	recs, _ := packingRun(rng)
	for i := range 2000 {
		recs = append(recs, soakRecord(rng, i, 300))
	}
	summary := func(recs []*results.Record, sweepEvery int) string {
		a := NewAggregator(Rules{Stall: time.Second})
		a.timeline.sweepEvery = sweepEvery
		for _, r := range recs {
			a.Add(r)
		}
		var b bytes.Buffer
		if err := a.Summary(Meta{Scenario: "s"}).JSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	want := summary(recs, 1<<30)
	for i := range 3 {
		rng.Shuffle(len(recs), func(a, b int) { recs[a], recs[b] = recs[b], recs[a] })
		if got := summary(recs, 1); got != want {
			t.Fatalf("shuffle %d, packing after every record: summary differs:\n%s\n---\n%s", i, got, want)
		}
	}
}

// TestTimelineMemoryFlat: from 5 to 25 minutes of a 300 calls/s soak the
// timeline's live heap grows by its packed seconds, about 90 bytes each
// (unpacked, 1,300: 1.5 MB over the 20 minutes).
func TestTimelineMemoryFlat(t *testing.T) {
	const rate, limit = 300, 400 // calls/s; bytes a second at most
	rng := rand.New(rand.NewPCG(11, 12))
	tl := new(timeline)
	before := heapInUse()
	var at5 uint64
	for i := range 25 * 60 * rate {
		if i == 5*60*rate {
			at5 = heapInUse()
		}
		tl.add(soakRecord(rng, i, rate))
	}
	grew := int64(heapInUse()) - int64(at5)
	t.Logf("live heap %d B at 5 min, grew %d B (%d B/s) to 25 min; %d seconds live, %d packed",
		at5-before, grew, grew/1200, len(tl.live), len(tl.packed))
	if grew > limit*20*60 {
		t.Errorf("the timeline's heap grew %d B from 5 to 25 min (%d B/s), want at most %d B/s", grew, grew/1200, limit)
	}
	runtime.KeepAlive(tl)
}

// BenchmarkTimelineAdd counts one call of a 300 calls/s soak a loop;
// allocations are the new seconds' and the packed ones', a few a second
// of run (-benchmem).
func BenchmarkTimelineAdd(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 14))
	recs := make([]*results.Record, 300*60)
	for i := range recs {
		recs[i] = soakRecord(rng, i, 300)
	}
	tl := new(timeline)
	shift := time.Duration(0)
	i := 0
	for b.Loop() {
		r := recs[i]
		r.Scheduled = r.Scheduled.Add(shift)
		tl.add(r)
		r.Scheduled = r.Scheduled.Add(-shift)
		if i++; i == len(recs) {
			i, shift = 0, shift+time.Minute
		}
	}
}
