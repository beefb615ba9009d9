package engine

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// drawsFault is a background fault that sends nothing and records, by
// tick, the first number its random source gives for that tick.
type drawsFault struct {
	mu    sync.Mutex
	draws map[uint64]uint64
}

func (f *drawsFault) Kind() string { return "draws" }

func (f *drawsFault) Draw(*rand.Rand, faults.Info) (faults.When, bool) { return faults.When{}, false }

func (f *drawsFault) Rate() scenarios.Rate { return scenarios.Rate{Freq: 40, Per: time.Second} }

func (f *drawsFault) Send(_ context.Context, n uint64, _ faults.Notifier, _ faults.IDs, rng *rand.Rand) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.draws[n] = rng.Uint64()
	return nil
}

// TestBackgroundDrawsByTick: a background fault's random choices for tick n
// are the same in a shard as in the whole run (the made-up ids of
// cancel_unknown, say), and differ from fault to fault: they derive from
// the seed, the fault and the tick alone, not from the ticks sent before.
func TestBackgroundDrawsByTick(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, targetserver.Config{})
	run := func(s Shard) (first, second map[uint64]uint64) {
		a, b := &drawsFault{draws: map[uint64]uint64{}}, &drawsFault{draws: map[uint64]uint64{}}
		p := httpPlan(tg.URL, Load{Rate: perSec(10), Duration: time.Second}, echoCall)
		p.Faults = []faults.Fault{a, b}
		p, err := p.ForShard(s)
		if err != nil {
			t.Fatal(err)
		}
		runLoad(t, context.Background(), p)
		return a.draws, b.draws
	}
	var wg sync.WaitGroup
	var whole [2]map[uint64]uint64
	var shards [2][2]map[uint64]uint64
	wg.Go(func() { whole[0], whole[1] = run(Shard{}) })
	for i := range 2 {
		wg.Go(func() { shards[i][0], shards[i][1] = run(Shard{Index: i, Count: 2}) })
	}
	wg.Wait()
	if len(whole[0]) < 20 {
		t.Fatalf("the whole run sent %d ticks of the first fault, want about 40", len(whole[0]))
	}
	for f := range 2 {
		for i := range 2 {
			for _, n := range slices.Sorted(maps.Keys(shards[i][f])) {
				if n%2 != uint64(i) {
					t.Errorf("fault %d: shard %d/2 sent tick %d", f, i, n)
				}
				if w, ok := whole[f][n]; ok && w != shards[i][f][n] {
					t.Errorf("fault %d, tick %d: shard %d/2 drew %d, the whole run %d", f, n, i, shards[i][f][n], w)
				}
			}
		}
	}
	for n, v := range whole[0] {
		if whole[1][n] == v {
			t.Errorf("tick %d: both faults drew %d", n, v)
		}
	}
}
