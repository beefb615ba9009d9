package limits

import (
	"math"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// slidingAccepts is what a sliding window of n per per accepts of calls
// (sorted): a call is accepted when fewer than n were in the last per.
func slidingAccepts(calls []time.Duration, n int, per time.Duration) []time.Duration {
	var ok []time.Duration
	for _, t := range calls {
		in := 0
		for _, a := range ok {
			if t-a < per {
				in++
			}
		}
		if in < n {
			ok = append(ok, t)
		}
	}
	return ok
}

// lateBy shifts each call by how late a client that falls behind sends
// it: nothing at first, then up to max by the end, growing evenly.
func lateBy(ts []time.Duration, maxLate time.Duration) []time.Duration {
	out := make([]time.Duration, len(ts))
	for i, t := range ts {
		out[i] = t + time.Duration(float64(maxLate)*float64(i)/float64(len(ts)))
	}
	return out
}

// TestSpanRate: the rate counted between a bucket's refusals is its rate
// however late the client sent, and a stall in which the bucket
// overflowed is left out.
func TestSpanRate(t *testing.T) {
	steady := offered(100, 0, 9*time.Second)
	late := lateBy(steady, time.Second)
	stalled := withPause(steady, 3*time.Second, 2*time.Second)
	tests := []struct {
		name        string
		calls       []time.Duration
		wantOK      bool
		wantStalled bool
	}{
		{"on time", steady, true, false},
		{"falling a second behind by the end", late, true, false},
		{"a 2 s stall, the bucket full after 1 s", stalled, true, true},
		{"too few calls to be refused twice", offered(100, 0, 200*ms), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := asObs(tt.calls, bucketAccepts(tt.calls, 20, 20))
			f := spanRate(list, time.Second, stallGap(100))
			if f.ok2 != tt.wantOK {
				t.Fatalf("found %v (%+v), want %v", f.ok2, f, tt.wantOK)
			}
			if !f.ok2 {
				return
			}
			if math.Abs(f.rate-20) > 0.02*20 {
				t.Errorf("rate %.2f over %v, want 20 ± 2%%", f.rate, f.span)
			}
			if (f.stalled > 0) != tt.wantStalled {
				t.Errorf("stalled %v, want some: %v", f.stalled, tt.wantStalled)
			}
		})
	}
	// A stall whose held-back calls go out together at its end, taken
	// in by the bucket in the order sent, their answers stamped in any
	// order over the next 200 ms.
	var held []time.Duration
	for _, c := range steady {
		held = append(held, max(c, min(max(c, 3*time.Second), 4500*ms)))
	}
	list := asObs(held, bucketAccepts(held, 20, 20))
	for i := range list {
		if list[i].sent == 4500*ms {
			list[i].at = list[i].sent + time.Duration(i*7919%200)*ms
		}
	}
	if f := spanRate(list, time.Second, stallGap(100)); !f.ok2 || math.Abs(f.rate-20) > 0.05*20 {
		t.Errorf("after a stall answered out of order: rate %.2f (%+v), want 20 ± 5%%", f.rate, f)
	}
	// What the hold's accepted calls over its schedule read for the
	// stalled client: the second in which the bucket stood full is lost
	// (the 17.2/s of a 20/s limit on a loaded machine).
	oks := bucketAccepts(stalled, 20, 20)
	if r := steadyRate(oks, time.Second, 9*time.Second); r > 19 {
		t.Errorf("the schedule's window read %.2f for the stalled client; the case no longer shows the miss", r)
	}
}

// TestSlidingPeriod: a client that pauses now and then begins a sliding
// window's clumps late, so they drift apart; the shortest interval
// between them is the window's length.
func TestSlidingPeriod(t *testing.T) {
	var calls []time.Duration
	for _, t := range offered(120, 0, 10*time.Second) {
		if in := t % (700 * ms); in < 580*ms { // a 120 ms pause every 0.7 s
			calls = append(calls, t)
		}
	}
	oks := slidingAccepts(calls, 30, time.Second)
	p, ok := findPeriod(oks, minGap(120))
	if !ok {
		t.Fatalf("no period in the sliding window's clumps")
	}
	if p.every < 1050*ms {
		t.Errorf("median interval %v: the case does not drift", p.every)
	}
	got := slidingPeriod(p)
	if d := got - time.Second; d < -20*ms || d > 30*ms {
		t.Errorf("length %v, want 1s (median %v)", got, p.every)
	}
	if r := cycleCount(oks, p) / got.Seconds(); math.Abs(r-30) > 0.05*30 {
		t.Errorf("rate %.2f, want 30 ± 5%%", r)
	}
}

// TestOnTime: a second in which the client sent a call late is left out
// of a capacity step, and so is the second after it.
func TestOnTime(t *testing.T) {
	began := time.Unix(1000, 0)
	step := func(late int) records {
		var recs records
		for i, at := range offered(30, 0, 3*time.Second) {
			r := &results.Record{Scheduled: began.Add(at), SentUs: 500}
			if i == late {
				r.SentUs = 150_000
			}
			recs = append(recs, r)
		}
		return recs
	}
	tests := []struct {
		name  string
		late  int // the call sent late, by index (-1: none)
		wantD time.Duration
	}{
		{"on time", -1, 3 * time.Second},
		{"late in the first second", 0, time.Second},
		{"late in the last second", 70, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := step(tt.late)
			kept, d := onTime(recs, 30)
			if d != tt.wantD {
				t.Errorf("kept %v, want %v", d, tt.wantD)
			}
			if want := int(tt.wantD / time.Second * 30); math.Abs(float64(len(kept)-want)) > 1 {
				t.Errorf("kept %d calls, want about %d", len(kept), want)
			}
		})
	}
	if kept, d := onTime(nil, 30); kept != nil || d != 0 {
		t.Errorf("no records: kept %v for %v", kept, d)
	}
}

// TestSlowAccepts: a cap's accepted calls are slow and its refusals quick;
// a starved client's answers are all slow alike.
func TestSlowAccepts(t *testing.T) {
	mk := func(okMs, refusedMs int) []obs {
		var list []obs
		for i := range 20 {
			at := time.Duration(i) * 50 * ms
			list = append(list, obs{sent: at, answered: at + time.Duration(okMs)*ms, ok: true},
				obs{sent: at, answered: at + time.Duration(refusedMs)*ms, throttled: true})
		}
		return list
	}
	tests := []struct {
		name          string
		okMs, refusMs int
		want          bool
	}{
		{"a cap: 500 ms work, 2 ms refusals", 500, 2, true},
		{"a starved client: everything 400 ms", 400, 380, false},
		{"fast calls", 5, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := slowAccepts(mk(tt.okMs, tt.refusMs), 150*ms); got != tt.want {
				t.Errorf("slowAccepts = %v, want %v", got, tt.want)
			}
		})
	}
}
