package report

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// BenchmarkCollectPath is what `mcpchaos run` does with every finished
// call on its one collecting goroutine (internal/engine/run.go, collect):
// the call's line written to the results file (--output; a real file on
// disk, plain or gzipped, flushed every 200 ms as a run does) and the
// call added to the aggregator (no per-second data, as without --html and
// --hlog). Its calls/s is how many calls a second that goroutine takes at
// most: `run` falls behind in writing only above it (issue 28, item 4:
// 20,000 calls/s). The calls are the soak's mix at 20,000/s.
//
//	go test -run '^$' -bench CollectPath -benchtime=200000x -count=3 ./report/
func BenchmarkCollectPath(b *testing.B) {
	for _, name := range []string{"r.jsonl", "r.jsonl.gz"} {
		b.Run(name, func(b *testing.B) {
			const rate = 20_000
			rng := rand.New(rand.NewPCG(5, 6))
			recs := make([]*results.Record, 1<<14)
			for i := range recs {
				recs[i] = soakRecord(rng, i, rate)
			}
			w, err := results.Create(filepath.Join(b.TempDir(), name), 200*time.Millisecond)
			if err != nil {
				b.Fatal(err)
			}
			a := NewAggregator(Rules{Stall: 2 * time.Second, ProgressGrace: 100 * time.Millisecond, FloodHz: 50})
			a.KeepSeconds(false)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				r := recs[i%len(recs)]
				if err := w.Write(r); err != nil {
					b.Fatal(err)
				}
				a.Add(r)
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
