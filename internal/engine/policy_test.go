package engine

import (
	"testing"
	"time"
)

func TestReplay(t *testing.T) {
	s := time.Second
	ms := time.Millisecond
	fixed := Policy{Name: "fixed-1s", Timeout: s}
	idleNoReset := Policy{Name: "idle-no-reset", Idle: s}
	resetNoCap := Policy{Name: "reset-no-cap", Idle: s, ResetOnProgress: true}
	resetWithCap := Policy{Name: "reset-with-cap", Idle: s, ResetOnProgress: true, Max: 5 * s}
	// progressing is a call with progress every 100 ms, cut or answered
	// 100 ms after the last one.
	progressing := func(ran time.Duration, answered bool) timeline {
		return timeline{ran: ran, answered: answered, maxGap: 100 * ms, sinceProgress: 100 * ms, progressed: true}
	}
	// capped is a progressing call that our own cap cut.
	capped := func(ran time.Duration) timeline {
		t := progressing(ran, false)
		t.capped = true
		return t
	}
	for _, tt := range []struct {
		name string
		p    Policy
		t    timeline
		want string
	}{
		{"fixed: ran past it", fixed, timeline{ran: 2 * s}, policyKilled},
		{"fixed: ran past it though answered", fixed, timeline{ran: 1500 * ms, answered: true}, policyKilled},
		{"fixed: answered in time", fixed, timeline{ran: 500 * ms, answered: true}, policyOK},
		{"fixed: answered exactly at it", fixed, timeline{ran: s, answered: true}, policyOK},
		{"fixed: progress does not help", fixed, progressing(3*s, true), policyKilled},
		{"fixed: we cut it first", fixed, timeline{ran: 500 * ms}, policyUndecided},

		{"idle without reset: the whole call is one silence", idleNoReset, progressing(1500*ms, true), policyKilled},
		{"idle without reset: answered in time", idleNoReset, progressing(900*ms, true), policyOK},

		{"reset, no cap: progress keeps it alive until our cap cuts it", resetNoCap, capped(10 * s), policyWaitedForever},
		{"reset, no cap: cut by a fault or the end of the run", resetNoCap, progressing(10*s, false), policyUndecided},
		{"reset, no cap: capped, but silent too long before the cut", resetNoCap,
			timeline{ran: 10 * s, maxGap: 1500 * ms, sinceProgress: 1500 * ms, progressed: true, capped: true}, policyKilled},
		{"reset, no cap: capped without any progress", resetNoCap, timeline{ran: 900 * ms, maxGap: 900 * ms, sinceProgress: 900 * ms, capped: true}, policyUndecided},
		{"reset, no cap: a long silence kills it", resetNoCap, timeline{ran: 3 * s, maxGap: 1500 * ms, sinceProgress: 200 * ms, progressed: true}, policyKilled},
		{"reset, no cap: a silence of exactly idle is not", resetNoCap, timeline{ran: 3 * s, answered: true, maxGap: s, sinceProgress: s, progressed: true}, policyOK},
		{"reset, no cap: answered after a long progressing call", resetNoCap, progressing(10*s, true), policyOK},
		{"reset, no cap: no progress, cut early", resetNoCap, timeline{ran: 500 * ms, maxGap: 500 * ms, sinceProgress: 500 * ms}, policyUndecided},
		{"reset, no cap: no progress, silent too long", resetNoCap, timeline{ran: 2 * s, maxGap: 2 * s, sinceProgress: 2 * s}, policyKilled},

		{"reset with cap: the cap kills a progressing call", resetWithCap, capped(10 * s), policyKilled},
		{"fixed: capped by us after its deadline", fixed, capped(3 * s), policyKilled},
		{"reset with cap: the cap kills even an answered one", resetWithCap, progressing(6*s, true), policyKilled},
		{"reset with cap: answered before the cap", resetWithCap, progressing(3*s, true), policyOK},
		{"reset with cap: answered exactly at the cap", resetWithCap, progressing(5*s, true), policyOK},
		{"reset with cap: we cut it before the cap", resetWithCap, progressing(3*s, false), policyUndecided},
		{"reset with cap: a long silence still kills", resetWithCap, timeline{ran: 2 * s, maxGap: 1200 * ms, sinceProgress: 100 * ms, progressed: true}, policyKilled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := replay(tt.p, tt.t); got != tt.want {
				t.Errorf("replay(%s, %+v) = %q, want %q", tt.p.Name, tt.t, got, tt.want)
			}
		})
	}
}
