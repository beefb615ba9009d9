//go:build timing

package e2e

import "testing"

// The timing tier of the throttling tests: where the onset and the best ok
// rate fall, which a starved client moves (go test -tags timing).

// approx reports whether got is within frac of want.
func approx(got, want, frac float64) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	return d <= frac*want
}

// TestTimingThrottlingOnsetHTTP ramps cheap calls through the target's
// rate limit (100/1s, no burst): the onset is within 15% of the limit and
// the best ok rate is the limit; at 250/s from the start, the onset is the
// offered rate and about 2 s × 100/s pass.
func TestTimingThrottlingOnsetHTTP(t *testing.T) {
	t.Run("ramp", func(t *testing.T) {
		// A ramp of 14/s per second: the limit's trailing-second count
		// passes 100 at about 107/s offered, and the onset window's own
		// rate is at most half a second of ramp above.
		o, _ := throttlingHTTP(t, "100/1s", ", rate_limit_code: -32029", "rate: 20/1s\n  stages: [{to: 300/1s, over: 20s}]")
		th := o.Sum.Throttling
		if !approx(th.OnsetRate, 100, 0.15) {
			t.Errorf("throttling.onset_rate = %v, want within 15%% of the limit, 100/s", th.OnsetRate)
		}
		// Ok calls are counted when answered: on a client starved of CPU,
		// answers the limiter passed at 100/s reach it in bursts (143 in
		// one second was seen on a loaded machine); counting throttled
		// calls as ok would give about 300.
		if th.BestOKRate < 85 || th.BestOKRate > 150 {
			t.Errorf("throttling.best_ok_rate = %v, want 85-150 (the limit, 100/s)", th.BestOKRate)
		}
	})
	t.Run("over-from-the-start", func(t *testing.T) {
		o, _ := throttlingHTTP(t, "100/1s", "", "rate: 250/1s\n  duration: 2s")
		th := o.Sum.Throttling
		if !approx(th.OnsetRate, 250, 0.15) {
			t.Errorf("throttling.onset_rate = %v, want 250 ± 15%%", th.OnsetRate)
		}
		if !approx(float64(th.Total), 300, 0.15) {
			t.Errorf("throttling.total = %d, want about 300 (500 calls, 2 s × 100/s pass)", th.Total)
		}
	})
}

// TestTimingRetriesAreNotOfferedLoad: at 150/s offered with retries made
// at once, rate.offered and the onset read about 150/s, not ~375/s.
func TestTimingRetriesAreNotOfferedLoad(t *testing.T) {
	s := retriesRun(t).Sum
	if s.Calls.Retried == 0 {
		t.Fatal("no call was retried")
	}
	if !approx(s.Rate.Offered, 150, 0.15) {
		t.Errorf("rate.offered = %v, want 150 ± 15%% (the pacer's rate; %d retries are not offered load)", s.Rate.Offered, s.Calls.Retried)
	}
	if !approx(s.Throttling.OnsetRate, 150, 0.15) {
		t.Errorf("throttling.onset_rate = %v, want 150 ± 15%%", s.Throttling.OnsetRate)
	}
}
