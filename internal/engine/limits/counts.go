package limits

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/engine"
	"github.com/mcpchaos/mcpchaos/report"
)

// countProbe is what the counts phase found for one kind of request.
type countProbe struct {
	key       string // the summary's name: tools_list or initialize
	method    string // the request sent
	sent      int    // answered (throttled or not)
	throttled int
	calls     int // tool calls sent at once right after
	callsOK   int // of them, accepted
	// control and controlOK are the same tool calls at once after idle
	// with no request before them, and those accepted: unless all were,
	// the calls after the requests say nothing.
	control, controlOK int
}

// countsPhase asks whether requests other than tool calls take from the
// limit: after idle long enough for the limiter to fill, twice its burst
// and 10 of them at once (tools/list, then the era's set-up request), and
// right after, three quarters of the burst (at most 10) of tool calls at once: the first burst,
// taken in while the limiter refills, may read above the limiter's size. A
// request that spent the budget leaves those calls refused. Before each,
// the same calls at once after idle alone are the control: all must be
// accepted.
func (s *Search) countsPhase(ctx context.Context) error {
	if s.f.holdRate == 0 {
		return nil
	}
	if _, isCap := s.isCap(); isCap {
		return nil // a cap counts calls in flight, not requests
	}
	burst, _ := count(s.limitedOf(s.f.burst))
	spec := -1
	if ref, ok := lastRefusal(s.f.hold); ok {
		spec = s.spec(ref.tool)
	}
	idle := s.refillIdle()
	n := probeCalls(burst)
	for _, p := range []countProbe{{key: "tools_list", method: vocab.MethodToolsList}, {key: "initialize", method: engine.AskSetup}} {
		if s.left() < 2*idle+4*time.Second {
			s.f.notes = append(s.f.notes, "no budget left to ask whether "+p.key+" counts against the limit")
			return nil
		}
		var err error
		if p.control, p.controlOK, err = s.callsAfterIdle(ctx, idle, n, spec, nil); err != nil {
			return err
		}
		ask := func() { s.ask(ctx, &p, min(200, 2*burst+10)) }
		p.calls, p.callsOK, err = s.callsAfterIdle(ctx, idle, n, spec, ask)
		s.f.counts = append(s.f.counts, p)
		if err != nil {
			return err
		}
	}
	return nil
}

// callsAfterIdle waits idle, runs before (when not nil), then sends n
// calls of spec at once and counts them and those accepted.
func (s *Search) callsAfterIdle(ctx context.Context, idle time.Duration, n, spec int, before func()) (sent, ok int, err error) {
	s.c.Phase("counts")
	if !s.c.WaitUntil(ctx, time.Now().Add(idle)) {
		return 0, 0, ctx.Err()
	}
	if before != nil {
		before()
	}
	at := time.Now()
	got, _, err := s.phase(ctx, "counts", func(fire firer) {
		for range n {
			fire(at, spec)
		}
	})
	ok, _ = count(got)
	return len(got), ok, err
}

// ask sends n of p's requests at once and counts their answers.
func (s *Search) ask(ctx context.Context, p *countProbe, n int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			sent, throttle, ok := s.c.Ask(ctx, p.method)
			mu.Lock()
			defer mu.Unlock()
			if ok {
				p.method, p.sent = sent, p.sent+1
				if throttle != "" {
					p.throttled++
				}
			}
		})
	}
	wg.Wait()
}

// refillIdle is how long to wait for the limiter to fill: a window's
// length and 200 ms, or 1.5 times the burst at the rate found and 500 ms
// (at most 10 s).
func (s *Search) refillIdle() time.Duration {
	if p, ok := s.holdPeriod(); ok && !s.notAWindow(p) {
		return p.every + 200*time.Millisecond
	}
	rate, _ := s.steady()
	ok, _ := count(s.limitedOf(s.f.burst))
	if rate <= 0 {
		return 2 * time.Second
	}
	return min(time.Duration(1.5*float64(ok)/rate*float64(time.Second))+500*time.Millisecond, 10*time.Second)
}

// counts: whether tools/list, the set-up request and refused calls take
// from the limit.
func (s *Search) counts(l *report.Limits) {
	l.Counts = report.LimitCounts{ToolsList: "unknown", Initialize: "unknown", Refused: "unknown"}
	for _, p := range s.f.counts {
		v := "unknown"
		switch {
		case p.sent == 0 || p.calls == 0 || p.control == 0 || p.controlOK < p.control:
		case p.callsOK < p.calls:
			v = "counts"
		case p.throttled > 0:
			v = "own_limit"
		default:
			v = "free"
		}
		if p.key == "tools_list" {
			l.Counts.ToolsList = v
		} else {
			l.Counts.Initialize = v
		}
		l.Evidence = append(l.Evidence, fmt.Sprintf("counts %s %s: %d %s at once after idle, %d throttled; then %d of %d tool calls at once accepted (%d of %d alone after idle)",
			p.key, v, p.sent, p.method, p.throttled, p.callsOK, p.calls, p.controlOK, p.control))
	}
	switch l.Lockout.Verdict {
	case "locked_out":
		l.Counts.Refused = "counts"
	case "none":
		l.Counts.Refused = "free"
	}
}

// probeCalls is how many calls at once a full limiter surely accepts:
// three quarters of the first burst's accepted calls (which a busy
// client spreads while the limiter refills), at most 10, at least 1.
func probeCalls(burst int) int { return max(1, min(burst, 10)*3/4) }
