package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// note is one progress notification, at an offset from the send.
type note struct {
	at    time.Duration
	v     float64
	total float64 // 0: no total
}

func notes(every time.Duration, values ...float64) []note {
	out := make([]note, len(values))
	for i, v := range values {
		out[i] = note{at: time.Duration(i+1) * every, v: v}
	}
	return out
}

func TestProgressTracker(t *testing.T) {
	sent := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	tests := []struct {
		name     string
		notes    []note
		end      time.Duration // 0: none
		answered bool
		rules    ProgressRules
		// nonMono lists which notifications add reports as non-monotonic.
		nonMono []int
		want    results.Progress // Values are checked only when set
	}{
		{name: "increasing", notes: notes(100*ms, 1, 2, 3), end: 350 * ms, answered: true,
			want: results.Progress{Count: 3, Values: []float64{1, 2, 3}, Last: 3, MaxGapUs: 100000, MaxRateHz: 3, LeadUs: 50000}},
		{name: "equal is a violation", notes: notes(10*ms, 1, 2, 2, 3),
			nonMono: []int{2}, want: results.Progress{Count: 4, Last: 3, MaxGapUs: 10000, MaxRateHz: 4}},
		{name: "lower is a violation, then recovering is not", notes: notes(10*ms, 0.5, 1, 0.25, 0.3, 2),
			nonMono: []int{2}, want: results.Progress{Count: 5, Last: 2, MaxGapUs: 10000, MaxRateHz: 5}},
		{name: "a first value of zero is fine", notes: notes(10*ms, 0, 0),
			nonMono: []int{1}, want: results.Progress{Count: 2, MaxGapUs: 10000, MaxRateHz: 2}},
		{name: "first gap is from the send", notes: []note{{400 * ms, 1, 0}, {450 * ms, 2, 0}}, end: 460 * ms, answered: true,
			want: results.Progress{Count: 2, Last: 2, MaxGapUs: 400000, MaxRateHz: 2, LeadUs: 10000}},
		{name: "middle gap", notes: []note{{10 * ms, 1, 0}, {20 * ms, 2, 0}, {770 * ms, 3, 0}, {780 * ms, 4, 0}}, end: 800 * ms,
			want: results.Progress{Count: 4, Last: 4, MaxGapUs: 750000, MaxRateHz: 4}},
		{name: "trailing gap counts", notes: notes(100*ms, 1, 2), end: 1500 * ms, rules: ProgressRules{Stall: time.Second},
			want: results.Progress{Count: 2, Last: 2, MaxGapUs: 1300000, MaxRateHz: 2, Stalled: true}},
		{name: "no end: no trailing gap", notes: notes(100*ms, 1, 2), rules: ProgressRules{Stall: 50 * ms},
			want: results.Progress{Count: 2, Last: 2, MaxGapUs: 100000, MaxRateHz: 2, Stalled: true}},
		{name: "no progress at all: the call is one silence", end: 3 * time.Second, rules: ProgressRules{Stall: 2 * time.Second},
			want: results.Progress{MaxGapUs: 3000000, Stalled: true}},
		{name: "a gap equal to the stall threshold is not a stall", notes: notes(time.Second, 1), end: 1500 * ms,
			rules: ProgressRules{Stall: time.Second}, want: results.Progress{Count: 1, Last: 1, MaxGapUs: 1000000, MaxRateHz: 1}},
		{name: "10 Hz for 3 s is 10 per window", notes: notes(100*ms, seq(30)...), end: 3100 * ms,
			rules: ProgressRules{FloodHz: 10}, want: results.Progress{Count: 30, Last: 30, MaxGapUs: 100000, MaxRateHz: 10}},
		{name: "a burst inside one second floods", notes: append(notes(time.Second, 1, 2), notes2(2500*ms, ms, 3, 60)...),
			rules: ProgressRules{FloodHz: 50}, want: results.Progress{Count: 60, Last: 60, MaxGapUs: 1000000, MaxRateHz: 59, Flood: true}},
		{name: "the window slides: spread bursts never add up", notes: append(notes2(0, ms, 1, 30), notes2(1000*ms, ms, 31, 60)...),
			rules: ProgressRules{FloodHz: 50}, want: results.Progress{Count: 60, Last: 60, MaxGapUs: 971000, MaxRateHz: 30}},
		{name: "exactly the flood rate is not a flood", notes: notes(20*ms, seq(50)...),
			rules: ProgressRules{FloodHz: 50}, want: results.Progress{Count: 50, Last: 50, MaxGapUs: 20000, MaxRateHz: 50}},
		{name: "answered below the total is incomplete", notes: []note{{10 * ms, 1, 10}, {20 * ms, 9, 10}}, end: 30 * ms, answered: true,
			want: results.Progress{Count: 2, Last: 9, Total: 10, MaxGapUs: 10000, MaxRateHz: 2, Incomplete: true, LeadUs: 10000}},
		{name: "answered at the total is complete", notes: []note{{10 * ms, 1, 10}, {20 * ms, 10, 10}}, end: 30 * ms, answered: true,
			want: results.Progress{Count: 2, Last: 10, Total: 10, MaxGapUs: 10000, MaxRateHz: 2, LeadUs: 10000}},
		{name: "not answered is never incomplete", notes: []note{{10 * ms, 1, 10}}, end: 30 * ms,
			want: results.Progress{Count: 1, Last: 1, Total: 10, MaxGapUs: 20000, MaxRateHz: 1}},
		{name: "no total is never incomplete", notes: notes(10*ms, 1), end: 20 * ms, answered: true,
			want: results.Progress{Count: 1, Last: 1, MaxGapUs: 10000, MaxRateHz: 1, LeadUs: 10000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p progressTracker
			p.start(sent)
			var nonMono []int
			for i, n := range tt.notes {
				if p.add(sent.Add(n.at), n.v, n.total, n.total != 0) {
					nonMono = append(nonMono, i)
				}
			}
			if !slices.Equal(nonMono, tt.nonMono) {
				t.Errorf("non-monotonic at %v, want %v", nonMono, tt.nonMono)
			}
			var end time.Time
			if tt.end > 0 {
				end = sent.Add(tt.end)
			}
			got := p.finish(end, tt.answered, tt.rules)
			if tt.want.Values == nil {
				got.Values = nil
			}
			if !equalProgress(*got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

func TestProgressValuesBounded(t *testing.T) {
	var p progressTracker
	sent := time.Now()
	p.start(sent)
	for i := range results.MaxValues + 10 {
		p.add(sent.Add(time.Duration(i+1)*time.Millisecond), float64(i), 0, false)
	}
	got := p.finish(time.Time{}, false, ProgressRules{})
	if got.Count != results.MaxValues+10 || len(got.Values) != results.MaxValues || got.Values[results.MaxValues-1] != results.MaxValues-1 {
		t.Errorf("count %d, %d values ending %v; want %d, the first %d", got.Count, len(got.Values), got.Values[len(got.Values)-1],
			results.MaxValues+10, results.MaxValues)
	}
}

// seq returns 1..n.
func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i + 1)
	}
	return out
}

// notes2 returns notifications from..to, one every step starting at start.
func notes2(start, step time.Duration, from, to int) []note {
	var out []note
	for v := from; v <= to; v++ {
		out = append(out, note{at: start + time.Duration(v-from)*step, v: float64(v)})
	}
	return out
}

// TestProgressLead: an answered call keeps how long before its answer
// its last progress came, at least 1 µs; an unanswered one keeps none.
func TestProgressLead(t *testing.T) {
	sent := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		end      time.Duration
		answered bool
		want     int64
	}{
		{"10 ms", 20 * time.Millisecond, true, 10000},
		{"under a microsecond is 1", 10*time.Millisecond + 100, true, 1},
		{"no answer, no lead", 20 * time.Millisecond, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p progressTracker
			p.start(sent)
			p.add(sent.Add(10*time.Millisecond), 1, 0, false)
			if got := p.finish(sent.Add(tc.end), tc.answered, ProgressRules{}).LeadUs; got != tc.want {
				t.Errorf("lead_us %d, want %d", got, tc.want)
			}
		})
	}
}

func equalProgress(a, b results.Progress) bool {
	return a.Count == b.Count && slices.Equal(a.Values, b.Values) && a.Last == b.Last && a.Total == b.Total &&
		a.MaxGapUs == b.MaxGapUs && a.MaxRateHz == b.MaxRateHz && a.Stalled == b.Stalled && a.Flood == b.Flood &&
		a.Incomplete == b.Incomplete && a.LeadUs == b.LeadUs
}

// TestBeyondGraceFromDelivery: the progress grace runs from when the
// cancel was delivered, not from when it was decided. On a starved machine
// the two were seen 450ms apart, and progress the server sent before it
// could know of the cancel was judged after_cancel.
func TestBeyondGraceFromDelivery(t *testing.T) {
	t0 := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	tests := []struct {
		name      string
		sent      time.Duration // cancel delivered at t0+sent; <0: not yet
		at        time.Duration
		violation bool
	}{
		{name: "within the grace of the decision", sent: 1 * ms, at: 50 * ms},
		{name: "late after the decision, within the grace of the delivery", sent: 450 * ms, at: 500 * ms},
		{name: "beyond the grace of the delivery", sent: 450 * ms, at: 600 * ms, violation: true},
		{name: "cancel decided, not delivered yet", sent: -1, at: 900 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := &callState{r: &runner{plan: Plan{Progress: ProgressRules{Grace: 100 * ms}}}, cancelAt: t0}
			if tt.sent >= 0 {
				cs.cancelSent = t0.Add(tt.sent)
			}
			if got := cs.beyondGrace(t0.Add(tt.at)); got != tt.violation {
				t.Errorf("beyondGrace(+%s) = %v, want %v", tt.at, got, tt.violation)
			}
		})
	}
}

// TestProgressAfterLegacyDisconnect: progress after a plain disconnect is
// after_cancel only where a disconnect is a cancel (2026-07-28); in a 2025
// era it is late progress, not a violation (a gateway's GET stream may
// still carry it).
func TestProgressAfterLegacyDisconnect(t *testing.T) {
	t0 := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		era       client.Era
		outcome   string
		violation bool
	}{
		{client.Era20251125, results.Disconnected, false},
		{client.Era20260728, results.Disconnected, true},
		{client.Era20251125, results.Cancelled, true},
	} {
		t.Run(string(tc.era)+" "+tc.outcome, func(t *testing.T) {
			cs := &callState{r: &runner{plan: Plan{Progress: ProgressRules{Grace: 100 * time.Millisecond}}},
				cancelAt: t0, cancelSent: t0, stopOutcome: tc.outcome}
			cs.info.Era = tc.era
			cs.onProgress(client.Event{Kind: client.EvProgress, At: t0.Add(time.Second), Progress: 1})
			if got := cs.rec.Violations["after_cancel"] > 0; got != tc.violation || cs.rec.LateProgress != 1 {
				t.Errorf("after_cancel %v (late progress %d), want %v and 1", got, cs.rec.LateProgress, tc.violation)
			}
		})
	}
}
