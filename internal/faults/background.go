package faults

import (
	"context"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
)

// unsentBase starts the ids background faults use for requests that were
// never sent: far above any id a run hands out.
const unsentBase = int64(1) << 50

// sendTimeout bounds one background notification.
const sendTimeout = 5 * time.Second

// NotifyFlood sends client-to-server notifications at `rate` for the
// whole load: progress for tokens that were never issued, and cancels for
// ids that were never sent, alternately. (In 2026 client progress is
// outside the protocol altogether.)
//
// A correct server ignores them silently — no response, no crash — and its
// latency for the real calls holds: compare the run's latency with a run
// without the flood.
type NotifyFlood struct{ background }

var notifyFloodKind = kind{name: faultkinds.NotifyFlood, keys: rateKeys,
	build: func(b builder) Fault { return &NotifyFlood{b.background()} }}

func (f *NotifyFlood) Send(ctx context.Context, i uint64, n Notifier, _ IDs, _ *rand.Rand) error {
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	if i%2 == 0 {
		params := `{"progressToken":"mcpchaos-flood-` + strconv.FormatUint(i, 10) + `","progress":` + strconv.FormatUint(i+1, 10) + `}`
		return n.Notify(ctx, vocab.MethodProgress, []byte(params))
	}
	params := `{"requestId":` + strconv.FormatInt(unsentBase+int64(i), 10) + `,"reason":"mcpchaos: notify flood"}`
	return n.Notify(ctx, vocab.MethodCancelled, []byte(params))
}

// CancelUnknown sends notifications/cancelled at `rate` for ids that were
// never sent or whose calls already finished, alternately.
//
// A correct server ignores invalid cancels silently (SHOULD): no response,
// no error, no effect on other calls.
type CancelUnknown struct{ background }

var cancelUnknownKind = kind{name: faultkinds.CancelUnknown, keys: rateKeys,
	build: func(b builder) Fault { return &CancelUnknown{b.background()} }}

func (f *CancelUnknown) Send(ctx context.Context, i uint64, n Notifier, ids IDs, rng *rand.Rand) error {
	id := unsentBase + int64(i)
	if i%2 == 1 {
		if done := ids.Finished(rng); done != 0 {
			id = done
		}
	}
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	params := `{"requestId":` + strconv.FormatInt(id, 10) + `,"reason":"mcpchaos: cancel for an unknown request"}`
	return n.Notify(ctx, vocab.MethodCancelled, []byte(params))
}
