package limits

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

// identProbe is what the identity phase found: the first identity's calls
// at once after idle, then the second's right after.
type identProbe struct {
	done              bool
	first, second     string // the identities' names
	firstN, firstTh   int
	secondN, secondOK int
}

// identityPhase asks whether identities (header sets: API keys) share one
// limit: after idle long enough for the limiter to fill, the first
// identity sends twice the burst and 10 calls at once, spending its
// limit; right after, the second sends probeCalls of them at once. A
// shared limit refuses them.
func (s *Search) identityPhase(ctx context.Context) error {
	ids := s.c.Identities()
	if len(ids) < 2 || s.f.holdRate == 0 {
		return nil
	}
	if _, isCap := s.isCap(); isCap {
		return nil
	}
	burst, _ := count(s.limitedOf(s.f.burst))
	spec := -1
	if ref, ok := lastRefusal(s.f.hold); ok {
		spec = s.spec(ref.tool)
	}
	idle := s.refillIdle()
	if s.left() < idle+4*time.Second {
		s.f.notes = append(s.f.notes, "no budget left to ask whether the identities share a limit")
		return nil
	}
	defer func() { s.as = -1 }()
	// One call as each connects its client before the idle.
	for i := range 2 {
		s.as = i
		if _, _, err := s.phase(ctx, "identity", func(fire firer) { <-fire(time.Now(), spec) }); err != nil {
			return err
		}
	}
	if !s.c.WaitUntil(ctx, time.Now().Add(idle)) {
		return ctx.Err()
	}
	p := identProbe{done: true, first: ids[0].Name, second: ids[1].Name}
	for i, n := range []int{min(200, 2*burst+10), probeCalls(burst)} {
		s.as = i
		at := time.Now()
		got, _, err := s.phase(ctx, "identity", func(fire firer) {
			for range n {
				fire(at, spec)
			}
		})
		ok, th := count(got)
		if i == 0 {
			p.firstN, p.firstTh = len(got), th
		} else {
			p.secondN, p.secondOK = len(got), ok
		}
		if err != nil {
			return err
		}
	}
	s.f.ident = p
	return nil
}

// identities: whether one identity's exhaustion throttles another.
func (s *Search) identities(l *report.Limits) {
	p := s.f.ident
	if !p.done {
		if s.c != nil && len(s.c.Identities()) >= 2 {
			l.Identities = "unknown"
		}
		return
	}
	switch {
	case p.firstTh == 0 || p.secondN == 0:
		l.Identities = "unknown"
	case p.secondOK < p.secondN:
		l.Identities = "shared"
	default:
		l.Identities = "per_identity"
	}
	l.Evidence = append(l.Evidence, fmt.Sprintf("identities %s: %s sent %d calls at once after idle, %d throttled; right after, %d of %s's %d calls at once were accepted",
		l.Identities, p.first, p.firstN, p.firstTh, p.secondOK, p.second, p.secondN))
}
