package engine

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// background starts the background faults, each paced at its rate by the
// load's pacer; the returned function stops them and records what they
// did.
func (r *runner) background(ctx context.Context, info *Info) func() {
	bctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, f := range r.plan.Faults {
		if _, ok := f.(faults.Background); ok {
			info.Background = append(info.Background, BackgroundResult{Kind: f.Kind()})
		}
	}
	// Notifications go on the first client, taken now: the pool may
	// replace its clients while the load runs.
	to := r.clients.first()
	i := 0
	for _, f := range r.plan.Faults {
		b, ok := f.(faults.Background)
		if !ok {
			continue
		}
		res := &info.Background[i]
		// Each tick's random choices come from a stream of its own, derived
		// from the seed, the fault's index and the tick alone (as a call's
		// from its seq), so a shard draws what the single run draws for the
		// same ticks. One source per fault, seeded again at every tick:
		// nothing is allocated per tick.
		src := rand.NewPCG(0, 0)
		rng := rand.New(src)
		index := i
		i++
		wg.Add(1)
		go func() {
			defer wg.Done()
			rate := b.Rate()
			p := constant{vegeta.ConstantPacer{Freq: rate.Freq, Per: rate.Per}}
			// A shard sends its own ticks of each background fault.
			s := r.plan.Shard
			pacedFrom(bctx, p, r.began, r.plan.Load.Total(), s.first(), s.step(), func(n uint64, _ time.Duration) {
				res.Sent++
				src.Seed(uint64(r.plan.Seed), backgroundStream(index, n))
				if b.Send(bctx, n, to, &r.finished, rng) != nil {
					res.Failed++
				}
			})
		}()
	}
	return func() {
		cancel()
		wg.Wait()
	}
}

// backgroundStream numbers the random stream of tick n of the background
// fault with the given index: far from the calls' streams (their seq), and
// distinct for every fault and tick (below 2^48 ticks, 2^15 faults).
func backgroundStream(index int, n uint64) uint64 {
	return 1<<63 | uint64(index)<<48 | n&(1<<48-1)
}
