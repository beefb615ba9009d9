package engine

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/faults"
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
		// Background faults draw from streams of their own, numbered in
		// scenario order, far from the calls'.
		rng := rand.New(rand.NewPCG(uint64(r.plan.Seed), uint64(1)<<63+uint64(i)))
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
