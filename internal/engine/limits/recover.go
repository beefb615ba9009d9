package limits

import (
	"context"
	"math"
	"time"
)

// recoverPhase probes after the burst's last refusal until a call is
// accepted again.
func (s *Search) recoverPhase(ctx context.Context) error {
	ref, ok := lastRefusal(s.f.burst)
	if !ok {
		return nil
	}
	if end := firstEnd(s.limitedOf(s.f.burst)); end != math.MaxInt64 {
		s.f.rec.firstOK = end - s.f.burstAt
	}
	return s.recoverAfter(ctx, "recover", ref, s.f.burstAt, &s.f.rec)
}

// lastRefusal returns the throttled call answered last, preferring one
// with a hint.
func lastRefusal(list []obs) (obs, bool) {
	var best obs
	found := false
	for _, o := range list {
		if !o.throttled {
			continue
		}
		if !found || (o.hinted && !best.hinted) || (o.hinted == best.hinted && o.answered > best.answered) {
			best, found = o, true
		}
	}
	return best, found
}

// firstEnd is when the first accepted call of list was answered.
func firstEnd(list []obs) time.Duration {
	first := time.Duration(math.MaxInt64)
	for _, o := range list {
		if o.ok {
			first = min(first, o.answered)
		}
	}
	return first
}

// recoverAfter sends one call of ref's tool every Probe, from ref's
// answer, until one is accepted: for at most twice ref's hint plus 2 s
// (3 s without), 15 s, and a third of what the budget leaves.
func (s *Search) recoverAfter(ctx context.Context, name string, ref obs, from time.Duration, into *recovery) error {
	limit := 3 * time.Second
	if ref.hinted {
		limit = max(limit, 2*ref.hint+2*time.Second)
	}
	limit = min(limit, 15*time.Second, s.left()/3)
	spec := s.spec(ref.tool)
	into.done, into.ref, into.from = true, ref, from
	began := s.start.Add(max(ref.answered, s.now()))
	into.began = began.Sub(s.start) - from
	got, _, err := s.phase(ctx, name, func(fire firer) {
		var answers []<-chan obs
		for at := began; at.Sub(began) < limit && s.c.WaitUntil(ctx, at); at = at.Add(s.o.Probe) {
			answers = append(answers, fire(at, spec))
			if anyAccepted(answers) {
				return
			}
		}
	})
	into.tried = s.now() - ref.answered
	if first, ok := firstOK(got); ok {
		into.found, into.next, into.after = true, first.sent-from, first.sent-ref.answered
		into.sinceFirst = into.next
		if b, ok := firstOK(s.limitedOf(s.f.burst)); ok && from == s.f.burstAt {
			into.sinceFirst = first.sent - b.sent
		}
		for _, o := range got {
			if o.throttled && o.sent < first.sent {
				into.refused++
			}
		}
	}
	return err
}

// firstOK returns the accepted call sent first (list is in sent order).
func firstOK(list []obs) (obs, bool) {
	for _, o := range list {
		if o.ok {
			return o, true
		}
	}
	return obs{}, false
}

// anyAccepted reports, without waiting, whether one of the answers
// received so far is an accepted call.
func anyAccepted(answers []<-chan obs) bool {
	for _, ch := range answers {
		select {
		case o, ok := <-ch:
			if ok && o.ok {
				return true
			}
		default:
		}
	}
	return false
}
