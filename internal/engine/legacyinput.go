package engine

import (
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// A 2025 server asks for input with a request of its own on the call's
// stream; the client answers it after the think time (client/input.go).
// The answer counts when it goes (client.EvInputSent), as a 2026 round's
// does (rounds.go): a call that ends while the client thinks counts the
// time thought and no answer.

// legacyAsk is a 2025 input request whose answer has not gone yet.
type legacyAsk struct {
	at    time.Time
	think time.Duration
}

// onInputAsked notes an input request (cs.mu held).
func (cs *callState) onInputAsked(ev client.Event) {
	cs.asks = append(cs.asks, legacyAsk{at: ev.At, think: ev.Think})
}

// onInputSent counts an answer that went, or forgets one dropped (cs.mu
// held). The ask it ends is the one due first with that think time.
func (cs *callState) onInputSent(ev client.Event) {
	if !cs.endAt.IsZero() {
		return // the call ended while the client thought: thinkToEnd counted it
	}
	i := -1
	for j, a := range cs.asks {
		if a.think == ev.Think && (i < 0 || a.at.Before(cs.asks[i].at)) {
			i = j
		}
	}
	if i < 0 {
		return
	}
	cs.asks = append(cs.asks[:i], cs.asks[i+1:]...)
	if ev.Err != nil {
		return // dropped: never sent, nothing thought
	}
	ans := roundAnswer{kinds: map[string]int{ev.Detail: 1}, think: ev.Think}
	if ev.ContentMismatch {
		ans.mismatches = 1
	}
	cs.countAnswers(ans)
}

// thinkToEnd adds the time thought over the answers still waiting when
// the call ended at end (cs.mu held).
func (cs *callState) thinkToEnd(end time.Time) {
	for _, a := range cs.asks {
		cs.rec.ThinkUs += results.Us(min(max(end.Sub(a.at), 0), a.think))
	}
	cs.asks = nil
}
