package faults

import (
	"context"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/mcpchaos/mcpchaos/scenarios"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// unsentBase starts the ids background faults use for requests that were
// never sent: far above any id a run hands out.
const unsentBase = int64(1) << 50

// pace calls send at rate until ctx ends, counting failures.
func pace(ctx context.Context, rate scenarios.Rate, send func(n uint64) error) (sent, failed int) {
	p := vegeta.ConstantPacer{Freq: rate.Freq, Per: rate.Per}
	began := time.Now()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for n := uint64(0); ; n++ {
		wait, stop := p.Pace(time.Since(began), n)
		if stop {
			return sent, failed
		}
		if wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return sent, failed
			case <-timer.C:
			}
		} else if ctx.Err() != nil {
			return sent, failed
		}
		sent++
		if send(n) != nil {
			failed++
		}
	}
}

// NotifyFlood sends client-to-server notifications at a rate for the whole
// load: progress for tokens that were never issued, and cancels for ids
// that were never sent, alternately. (In 2026 client progress is outside
// the protocol altogether.)
//
// A correct server ignores them silently — no response, no crash — and its
// latency for the real calls holds: compare the run's latency with a run
// without the flood.
type NotifyFlood struct{ rate scenarios.Rate }

func (f *NotifyFlood) Kind() string         { return "notify_flood" }
func (f *NotifyFlood) Direction() Direction { return ClientToServer }

func (f *NotifyFlood) Run(ctx context.Context, n Notifier, _ IDs, _ *rand.Rand) (int, int) {
	return pace(ctx, f.rate, func(i uint64) error {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if i%2 == 0 {
			params := `{"progressToken":"mcpchaos-flood-` + strconv.FormatUint(i, 10) + `","progress":` + strconv.FormatUint(i+1, 10) + `}`
			return n.Notify(sctx, "notifications/progress", []byte(params))
		}
		params := `{"requestId":` + strconv.FormatInt(unsentBase+int64(i), 10) + `,"reason":"mcpchaos: notify flood"}`
		return n.Notify(sctx, "notifications/cancelled", []byte(params))
	})
}

// CancelUnknown sends notifications/cancelled at a rate for ids that were
// never sent or whose calls already finished, alternately.
//
// A correct server ignores invalid cancels silently (SHOULD): no response,
// no error, no effect on other calls.
type CancelUnknown struct{ rate scenarios.Rate }

func (f *CancelUnknown) Kind() string         { return "cancel_unknown" }
func (f *CancelUnknown) Direction() Direction { return ClientToServer }

func (f *CancelUnknown) Run(ctx context.Context, n Notifier, ids IDs, rng *rand.Rand) (int, int) {
	return pace(ctx, f.rate, func(i uint64) error {
		id := unsentBase + int64(i)
		if i%2 == 1 {
			if done := ids.Finished(rng); done != 0 {
				id = done
			}
		}
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		params := `{"requestId":` + strconv.FormatInt(id, 10) + `,"reason":"mcpchaos: cancel for an unknown request"}`
		return n.Notify(sctx, "notifications/cancelled", []byte(params))
	})
}
