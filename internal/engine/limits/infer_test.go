package limits

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

const ms = time.Millisecond

// offered returns the times of calls offered at rate per second for d.
func offered(rate float64, from, d time.Duration) []time.Duration {
	var ts []time.Duration
	every := time.Duration(float64(time.Second) / rate)
	for t := from; t < from+d; t += every {
		ts = append(ts, t)
	}
	return ts
}

// bucketAccepts is what a token bucket of size tokens (empty at from),
// refilled at rate, accepts of calls.
func bucketAccepts(calls []time.Duration, rate, size float64) []time.Duration {
	var ok []time.Duration
	tokens, last := 0.0, calls[0]
	for _, t := range calls {
		tokens = math.Min(size, tokens+(t-last).Seconds()*rate)
		last = t
		if tokens >= 1 {
			tokens--
			ok = append(ok, t)
		}
	}
	return ok
}

// fixedAccepts is what a fixed window of n per per (windows from zero)
// accepts of calls.
func fixedAccepts(calls []time.Duration, n int, per time.Duration) []time.Duration {
	var ok []time.Duration
	counts := map[time.Duration]int{}
	for _, t := range calls {
		w := t / per
		if counts[w] < n {
			counts[w]++
			ok = append(ok, t)
		}
	}
	return ok
}

// withPause drops the calls offered from at for d: a pause of the machine.
func withPause(ts []time.Duration, at, d time.Duration) []time.Duration {
	var out []time.Duration
	for _, t := range ts {
		if t < at || t >= at+d {
			out = append(out, t)
		}
	}
	return out
}

func TestFindPeriod(t *testing.T) {
	tests := []struct {
		name      string
		oks       []time.Duration
		rate      float64 // offered
		wantOK    bool
		wantEvery time.Duration
		wantRate  float64
	}{
		{"fixed window 50/2s at 100/s", fixedAccepts(offered(100, 300*ms, 9*time.Second), 50, 2*time.Second), 100, true, 2 * time.Second, 25},
		{"fixed window 10/500ms at 60/s", fixedAccepts(offered(60, 0, 6*time.Second), 10, 500*ms), 60, true, 500 * ms, 20},
		{"fixed window with a 250 ms pause inside a clump", fixedAccepts(withPause(offered(100, 300*ms, 9*time.Second), 4100*ms, 250*ms), 50, 2*time.Second), 100, true, 2 * time.Second, 25},
		{"token bucket 30/s at 80/s: no gaps", bucketAccepts(offered(80, 0, 8*time.Second), 30, 10), 80, false, 0, 0},
		{"token bucket 2/s: one call per gap is a rate", bucketAccepts(offered(20, 0, 8*time.Second), 2, 1), 20, false, 0, 0},
		{"no calls", nil, 10, false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := findPeriod(tt.oks, minGap(tt.rate))
			if ok != tt.wantOK {
				t.Fatalf("periodic = %v (%+v), want %v", ok, p, tt.wantOK)
			}
			if !ok {
				return
			}
			if d := p.every - tt.wantEvery; d < -20*ms || d > 20*ms {
				t.Errorf("period %v, want %v", p.every, tt.wantEvery)
			}
			if r := periodRate(tt.oks, p); math.Abs(r-tt.wantRate) > 0.02*tt.wantRate {
				t.Errorf("rate over whole periods %.2f, want %.2f", r, tt.wantRate)
			}
		})
	}
}

// asObs turns offered calls and the accepted ones into obs.
func asObs(offered, oks []time.Duration) []obs {
	accepted := map[time.Duration]bool{}
	for _, t := range oks {
		accepted[t] = true
	}
	var list []obs
	for _, t := range offered {
		list = append(list, obs{sent: t, answered: t + ms, at: t + ms/2, ok: accepted[t], throttled: !accepted[t]})
	}
	return list
}

// TestGapsRefused: a window's gaps are full of refused calls; a bucket's
// accepted calls clumped by the client's own pauses (nothing sent in
// them) are no window.
func TestGapsRefused(t *testing.T) {
	calls := offered(100, 300*ms, 9*time.Second)
	oks := fixedAccepts(calls, 50, 2*time.Second)
	p, ok := findPeriod(oks, minGap(100))
	if !ok || !gapsRefused(asObs(calls, oks), p, 100) {
		t.Fatalf("fixed window: periodic %v, gaps refused %v; want both", ok, ok && gapsRefused(asObs(calls, oks), p, 100))
	}
	// The client sends in batches every 160 ms (a busy machine): a
	// bucket of 30/s accepts a clump after each pause.
	var batched []time.Duration
	for b := 0; b < 50; b++ {
		for i := range 20 {
			batched = append(batched, time.Duration(b)*160*ms+time.Duration(i)*ms)
		}
	}
	boks := bucketAccepts(batched, 30, 10)
	if p, ok := findPeriod(boks, minGap(120)); ok && gapsRefused(asObs(batched, boks), p, 120) {
		t.Errorf("a bucket's clumps from the client's pauses (period %v) read as a window", p.every)
	}
}

func TestSteadyRate(t *testing.T) {
	oks := bucketAccepts(offered(80, 0, 10*time.Second), 30, 10)
	if r := steadyRate(oks, time.Second, 10*time.Second); math.Abs(r-30) > 1 {
		t.Errorf("token bucket 30/s under 80/s: steady rate %.2f, want 30 ± 1", r)
	}
	if r := steadyRate(oks, time.Second, time.Second); r != 0 {
		t.Errorf("an empty span: %v, want 0", r)
	}
}

func TestWindowKind(t *testing.T) {
	tests := []struct {
		name       string
		every      time.Duration
		nextAccept time.Duration
		kind       string
		sure       bool
	}{
		{"fixed: half a period after a mid-period burst", 2 * time.Second, 1020 * ms, "fixed_window", true},
		{"fixed: early in its period, not sure", 2 * time.Second, 200 * ms, "fixed_window", false},
		{"sliding: a whole period", 2 * time.Second, 2050 * ms, "sliding_window", true},
		{"sliding: late probes", time.Second, 1200 * ms, "sliding_window", true},
		{"ambiguous", time.Second, 800 * ms, "sliding_window", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, sure := windowKind(tt.every, tt.nextAccept)
			if kind != tt.kind || sure != tt.sure {
				t.Errorf("windowKind(%v, %v) = %s, %v; want %s, %v", tt.every, tt.nextAccept, kind, sure, tt.kind, tt.sure)
			}
		})
	}
}

func TestConcurrencyCap(t *testing.T) {
	tests := []struct {
		name                string
		ok                  int
		firstEnd, nextAccep time.Duration
		want                bool
	}{
		{"accepted right after the first slow call ended", 4, 510 * ms, 540 * ms, true},
		{"a rate limit accepts before any call ends", 10, 500 * ms, 40 * ms, false},
		{"calls too fast to tell", 4, 5 * ms, 30 * ms, false},
		{"accepted long after a call ended", 4, 500 * ms, 1200 * ms, false},
		{"nothing accepted", 0, 500 * ms, 500 * ms, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := concurrencyCap(tt.ok, tt.firstEnd, tt.nextAccep, 150*ms, 150*ms); got != tt.want {
				t.Errorf("concurrencyCap = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestInFlightAtRefusals(t *testing.T) {
	// Four slow calls in flight from 0 to 500 ms; two refusals while they
	// run, one after they ended.
	var list []obs
	for range 4 {
		list = append(list, obs{ok: true, sent: 0, answered: 500 * ms})
	}
	list = append(list, obs{throttled: true, sent: 100 * ms, answered: 101 * ms},
		obs{throttled: true, sent: 300 * ms, answered: 301 * ms},
		obs{throttled: true, sent: 700 * ms, answered: 701 * ms})
	got := inFlightAtRefusals(list)
	if len(got) != 3 || got[0] != 4 || got[1] != 4 || got[2] != 0 {
		t.Fatalf("in flight at refusals %v, want [4 4 0]", got)
	}
	if capHolds(got, 4) {
		t.Errorf("capHolds with one refusal of three at 0 in flight: want false (under 80%%)")
	}
	if !capHolds([]int{4, 4, 5, 4, 3}, 4) || capHolds([]int{1, 2, 7, 9}, 4) {
		t.Errorf("capHolds: want true for refusals at about 4 in flight, false for scattered ones")
	}
}

func TestRetryVerdict(t *testing.T) {
	tests := []struct {
		name          string
		hinted        bool
		advertised    time.Duration
		found         bool
		acceptedAfter time.Duration
		want          string
	}{
		{"honest: a token back in 33 ms, 1 s advertised (whole seconds)", true, time.Second, true, 40 * ms, "honest"},
		{"honest: the boundary in 1.4 s, 2 s advertised", true, 2 * time.Second, true, 1450 * ms, "honest"},
		{"too long: 5 s advertised, accepted at once", true, 5 * time.Second, true, 50 * ms, "too_long"},
		{"too short: 0 s advertised, 1.8 s refused", true, 0, true, 1800 * ms, "too_short"},
		{"too short: never accepted within the probe", true, time.Second, false, 3 * time.Second, "too_short"},
		{"milliseconds are not rounded", true, 250 * ms, true, 1200 * ms, "too_short"},
		{"absent", false, 0, true, 40 * ms, "absent"},
		{"unknown: probing stopped before the hint", true, 10 * time.Second, false, 3 * time.Second, "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryVerdict(tt.hinted, tt.advertised, tt.found, tt.acceptedAfter, 150*ms); got != tt.want {
				t.Errorf("retryVerdict = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestSlidingAfterBurst(t *testing.T) {
	tests := []struct {
		name       string
		n          int
		rate       float64
		r          recovery
		wantWindow time.Duration
		want       bool
	}{
		{"sliding 30/1s: nothing for a second after the burst", 30, 29.8, recovery{found: true, sinceFirst: 1030 * ms, refused: 19}, 1007 * ms, true},
		{"token bucket 30/s burst 10: a token after 33 ms", 10, 30, recovery{found: true, sinceFirst: 150 * ms, refused: 3}, 333 * ms, false},
		{"never accepted again", 30, 30, recovery{}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, ok := slidingAfterBurst(tt.n, tt.rate, tt.r)
			if ok != tt.want || (ok && (w-tt.wantWindow > 5*ms || tt.wantWindow-w > 5*ms)) {
				t.Errorf("slidingAfterBurst = %v, %v; want %v, %v", w, ok, tt.wantWindow, tt.want)
			}
		})
	}
}

func TestOver(t *testing.T) {
	few := []obs{{ok: true}, {ok: true}, {throttled: true}}
	many := make([]obs, 100)
	for i := range many {
		many[i] = obs{ok: i >= 5, throttled: i < 5}
	}
	some := make([]obs, 100)
	for i := range some {
		some[i] = obs{ok: i >= 6, throttled: i < 6}
	}
	if over(few) || over(many) || !over(some) {
		t.Errorf("over: one refusal %v, 5%% %v, 6%% %v; want false, false, true", over(few), over(many), over(some))
	}
}

// TestShapeCutShort: a search that ended after a throttled step and
// before the hold does not claim the rate is above what it offered.
func TestShapeCutShort(t *testing.T) {
	var whole []obs // a burst every call of which was accepted
	for range 20 {
		whole = append(whole, obs{phase: "burst", tool: "echo", answered: ms, ok: true})
	}
	s := &Search{f: findings{burst: whole, overRate: 36, searched: 36, ended: "interrupted"}}
	var l report.Limits
	s.shape(&l)
	if got := strings.Join(l.Evidence, "\n"); strings.Contains(got, "refused beyond") || !strings.Contains(got, "rate unknown: the step at 36/s was throttled") {
		t.Errorf("a burst with no refusal: evidence %q", got)
	}

	var burst []obs
	for i := range 20 {
		burst = append(burst, obs{phase: "burst", tool: "echo", sent: 0, answered: ms, ok: i < 10, throttled: i >= 10})
	}
	for _, tc := range []struct {
		name     string
		overRate float64
		ended    string
		want     string
	}{
		{"interrupted in a throttled step", 36, "interrupted",
			"rate unknown: the burst was refused beyond 10 and the step at 36/s was throttled, but the search was interrupted before the hold: the sustained rate, which the hold measures, is below 36/s"},
		{"out of budget for the hold", 36, "done",
			"the step at 36/s was throttled, but no hold was run (see the notes): the sustained rate"},
		{"no step throttled", 0, "done", "no rate up to 36/s was throttled (the sustained rate is above it)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Search{f: findings{burst: burst, overRate: tc.overRate, searched: 36, ended: tc.ended}}
			var l report.Limits
			s.shape(&l)
			if got := strings.Join(l.Evidence, "\n"); !strings.Contains(got, tc.want) {
				t.Errorf("evidence %q, want %q", got, tc.want)
			}
			if l.Rate != nil {
				t.Errorf("rate %v, want none", *l.Rate)
			}
		})
	}
}

func TestNum(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{36, "36"}, {39.9, "39.9"}, {0.5, "0.5"}, {0, "0"}, {1.0 / 3600, "0.00028"},
	} {
		if got := num(tc.x); got != tc.want {
			t.Errorf("num(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}
