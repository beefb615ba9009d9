package proxy

import (
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// progressEndless withholds the call's result and everything else the
// upstream sends for it, and instead sends the client a strictly
// increasing notifications/progress every `every` (default 250ms), for
// the progress token the client sent, until the client cancels or the
// proxy file's hold ends. (A call without a progress token gets no
// progress: it is only held.)
//
// A correct client caps every call with a maximum timeout that progress
// does not reset: it cancels at its cap (on 2026-07-28 HTTP by closing
// the request's stream), however much progress keeps coming. A client
// whose only timeout is reset by progress waits until the hold: the proxy
// records it as never_cancelled.
type progressEndless struct{ every time.Duration }

const defaultEndlessEvery = 250 * time.Millisecond

var progressEndlessKind = kind{name: faultkinds.ProgressEndless, keys: []string{"every"},
	build: func(r *scenarios.Reader) effect {
		return progressEndless{every: r.Positive("every", scenarios.Duration(defaultEndlessEvery)).Std()}
	}}

func (f progressEndless) apply(p *plan, _ time.Duration) {
	p.endless = true
	p.endlessTick = f.every
}
