package report

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/series"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestMergeSharedLeakFromCalls: two shards of one run ramp up against a
// shared server (each sends 40 calls a second, each call lasting 20 s, so
// its calls in flight grow by 4 every 100 ms), and sample it every 100 ms,
// shard 1 90 ms after shard 0. The server (baseline 1) runs their calls and
// 3 more from 4 s to 5 s that nobody waits for: 3 leaked call-seconds.
// Counting each shard at its peak around the other's readings
// (series.PeakSum, from the samples) over-counts shard 1 by the 3.6 calls
// it starts in 90 ms and hides nearly all of it; the merge counts the
// calls themselves, from their records, in each reading's 10 ms bin, and
// finds it, short by at most the calls started within a bin.
func TestMergeSharedLeakFromCalls(t *testing.T) {
	f, err := results.Open(runFile)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	const rate, span, life = 40, 10 * time.Second, 20 * time.Second
	offsets := []time.Duration{0, 90 * time.Millisecond}
	sentAt := func(shard, i int) time.Time {
		return t0.Add(time.Duration(i)*time.Second/rate + time.Duration(shard)*5*time.Millisecond)
	}
	// inFlight is shard's calls in flight at at (none ends within span).
	inFlight := func(shard int, at time.Time) int {
		n := 0
		for i := 0; !sentAt(shard, i).After(at); i++ {
			n++
		}
		return n
	}
	dir := t.TempDir()
	var paths []string
	var server []series.Point
	clients := make([][]series.Point, len(offsets))
	for s, off := range offsets {
		h := f.Header
		h.Transport = "http"
		h.Shard = &results.Shard{Index: s, Count: len(offsets), StartAt: t0}
		lines := []any{&h}
		for i := range int(span.Seconds() * rate) {
			at := sentAt(s, i)
			lines = append(lines, &results.Record{Type: results.TypeCall, ID: int64(i + 1), Seq: uint64(2*i + s), Tool: "slow",
				Scheduled: at.Add(-time.Millisecond), SentUs: 1000, ResponseUs: 1000 + life.Microseconds(),
				EndUs: 1000 + life.Microseconds(), Outcome: "ok"})
		}
		for at := t0.Add(off); at.Before(t0.Add(span)); at = at.Add(100 * time.Millisecond) {
			leak := 0.0
			if !at.Before(t0.Add(4*time.Second)) && at.Before(t0.Add(5*time.Second)) {
				leak = 3
			}
			own := inFlight(s, at)
			v := 1 + float64(own+inFlight(1-s, at)) + leak
			lines = append(lines, &results.Sample{Type: results.TypeSample, T: at, ClientInFlight: own, Probes: map[string]float64{"gauge": v}})
			server = append(server, series.Point{T: at, V: v})
			clients[s] = append(clients[s], series.Point{T: at, V: float64(own)})
		}
		in := RunInputs{Duration: span, Orphans: Orphans{Drained: true, ProbeErrors: []string{SharedLeakNote},
			Shared: &SharedServer{AfterAll: true, LeakProbe: "gauge", Baseline: 1, ServerProbes: []string{"gauge"}}}}
		lines = append(lines, &results.Trailer{Type: results.TypeTrailer, Ended: t0.Add(span + life), Run: mustInputs(t, in)})
		path := filepath.Join(dir, "ramp-"+strconv.Itoa(s)+".jsonl")
		writeLines(t, path, lines...)
		paths = append(paths, path)
	}
	peak := series.LeakedCallSeconds(server, series.PeakSum(server, clients...), 1)
	t.Logf("PeakSum of the samples: %.3f leaked call-seconds", peak)
	if peak > 1 {
		t.Errorf("PeakSum finds %.2f leaked call-seconds: the test no longer shows what it hides", peak)
	}
	m, err := Merge(context.Background(), paths, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A 10 ms bin holds at most one call of each shard: each reading over-
	// counts the client by at most 2, on average by less than 1.
	got := m.Inputs.Orphans.LeakedCallSeconds
	t.Logf("leaked call-seconds: %.3f from the calls, 3 true", got)
	if got < 2 || got > 3+1e-9 {
		t.Errorf("the merge found %.3f leaked call-seconds, want 3 less at most one bin's calls (2 or more)", got)
	}
}
