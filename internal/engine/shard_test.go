package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/results"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func TestParseShard(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     Shard
		err      string
	}{
		{name: "first of four", in: "0/4", want: Shard{0, 4}},
		{name: "last of four", in: "3/4", want: Shard{3, 4}},
		{name: "one shard", in: "0/1", want: Shard{0, 1}},
		{name: "index too high", in: "4/4", err: `shard "4/4": the index must be from 0 to 3`},
		{name: "negative index", in: "-1/4", err: `shard "-1/4": the index must be from 0 to 3`},
		{name: "no count", in: "0/0", err: `shard "0/0": the count must be at least 1`},
		{name: "no slash", in: "2", err: `parse shard "2": want INDEX/COUNT`},
		{name: "words", in: "a/b", err: `parse shard "a/b": want INDEX/COUNT as two whole numbers`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseShard(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseShard(%q) = %v, %v; want error %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseShard(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestForShard: the closed model's workers and an explicit max_in_flight
// are divided, the first shards taking the remainder; a shard left with
// none is an error.
func TestForShard(t *testing.T) {
	for _, tt := range []struct {
		name        string
		load        Load
		shard       Shard
		concurrency int
		maxInFlight int
		err         string
	}{
		{name: "whole run", load: Load{Concurrency: 10, MaxInFlight: 7}, concurrency: 10, maxInFlight: 7},
		{name: "even", load: Load{Concurrency: 8, MaxInFlight: 400}, shard: Shard{1, 4}, concurrency: 2, maxInFlight: 100},
		{name: "remainder to the first", load: Load{Concurrency: 10, MaxInFlight: 7}, shard: Shard{1, 4}, concurrency: 3, maxInFlight: 2},
		{name: "no remainder for the last", load: Load{Concurrency: 10, MaxInFlight: 7}, shard: Shard{3, 4}, concurrency: 2, maxInFlight: 1},
		{name: "default max_in_flight stays per shard", load: Load{Rate: perSec(10)}, shard: Shard{2, 4}},
		{name: "too few workers", load: Load{Concurrency: 3}, shard: Shard{3, 4},
			err: "shard 3/4: load.concurrency 3 is fewer than the 4 shards"},
		{name: "too small max_in_flight", load: Load{Rate: perSec(10), MaxInFlight: 2}, shard: Shard{2, 4},
			err: "shard 2/4: load.max_in_flight 2 is fewer than the 4 shards"},
		{name: "bad shard", load: Load{Rate: perSec(10)}, shard: Shard{5, 4}, err: `shard "5/4"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := (Plan{Load: tt.load}).ForShard(tt.shard)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ForShard = %v, want error %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Load.Concurrency != tt.concurrency || p.Load.MaxInFlight != tt.maxInFlight || p.Shard != tt.shard {
				t.Errorf("concurrency %d, max_in_flight %d, shard %v; want %d, %d, %v",
					p.Load.Concurrency, p.Load.MaxInFlight, p.Shard, tt.concurrency, tt.maxInFlight, tt.shard)
			}
		})
	}
}

// TestPacedShards: the shards' hits, together, are the whole run's hits,
// each at the same time, each sent by exactly one shard, for a constant
// rate and for stages.
func TestPacedShards(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    pacer
	}{
		{"constant", constant{vegeta.ConstantPacer{Freq: 300, Per: time.Second}}},
		{"stages", stagesOf(0, stage(200, time.Second), stage(50, 500*time.Millisecond))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				type hit struct {
					n  uint64
					at time.Duration
				}
				collect := func(s Shard) []hit {
					var hits []hit
					start := time.Now()
					pacedFrom(context.Background(), tt.p, start, 2*time.Second, s.first(), s.step(), func(n uint64, at time.Duration) {
						if !s.owns(n) {
							t.Errorf("shard %s got hit %d", s, n)
						}
						if late := time.Since(start) - at; late != 0 {
							t.Errorf("shard %s: hit %d sent %s after its time", s, n, late)
						}
						hits = append(hits, hit{n, at})
					})
					return hits
				}
				whole := collect(Shard{})
				var union []hit
				for i := range 3 {
					union = append(union, collect(Shard{i, 3})...)
				}
				slices.SortFunc(union, func(a, b hit) int { return int(a.n) - int(b.n) })
				if len(whole) < 100 || !slices.Equal(union, whole) {
					t.Errorf("3 shards made %d hits, the whole run %d; not the same hits", len(union), len(whole))
				}
			})
		})
	}
}

// TestStartAt: a run given a start instant ahead starts its load exactly
// then; one that comes late says so, and every tick due before it came is
// a dropped record (with the reason), never skipped: the shard's seqs are
// all there.
func TestStartAt(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, targetserver.Config{})
	t.Run("ahead", func(t *testing.T) {
		p := httpPlan(tg.URL, Load{Rate: perSec(20), Duration: time.Second}, echoCall)
		p.StartAt = time.Now().Add(500 * time.Millisecond).Truncate(time.Millisecond)
		o := runLoad(t, context.Background(), p)
		if !o.info.Started.Equal(p.StartAt) || o.info.Late != 0 {
			t.Errorf("started %s, late %s; want %s, on time", o.info.Started, o.info.Late, p.StartAt)
		}
		recs := o.bySeq(t)
		if len(recs) != 20 || !recs[0].Scheduled.Equal(p.StartAt) {
			t.Fatalf("%d calls, the first scheduled %s; want 20 from %s", len(recs), recs[0].Scheduled, p.StartAt)
		}
	})
	t.Run("late shard", func(t *testing.T) {
		p := httpPlan(tg.URL, Load{Rate: perSec(20), Duration: 2 * time.Second}, echoCall)
		p, err := p.ForShard(Shard{1, 2})
		if err != nil {
			t.Fatal(err)
		}
		p.StartAt = time.Now().Add(-time.Second)
		var told time.Duration
		var recs []*results.Record
		info, err := Run(context.Background(), p, Options{Sink: func(r *results.Record) { recs = append(recs, r) },
			OnLateStart: func(late time.Duration) { told = late }})
		if err != nil {
			t.Fatal(err)
		}
		if told < time.Second || info.Late != told || info.Header.Shard == nil || info.Header.Shard.LateUs != told.Microseconds() {
			t.Errorf("told late by %s, info %s, header %+v; want the same lateness ≥ 1s", told, info.Late, info.Header.Shard)
		}
		slices.SortFunc(recs, func(a, b *results.Record) int { return int(a.Seq) - int(b.Seq) })
		missed := 0
		for i, r := range recs {
			if want := uint64(2*i + 1); r.Seq != want {
				t.Fatalf("record %d has seq %d, want %d: the shard's ticks are 1, 3, 5, ...", i, r.Seq, want)
			}
			due := r.Scheduled.Sub(p.StartAt)
			switch {
			case due < time.Second && (r.Outcome != results.Dropped || !strings.Contains(r.Error, "missed")):
				t.Errorf("seq %d due at +%s, before the late start: %s %q, want dropped as missed", r.Seq, due, r.Outcome, r.Error)
			case r.Outcome == results.Dropped:
				missed++
			}
		}
		if len(recs) != 20 || missed != info.Missed || missed < 10 {
			t.Errorf("%d calls (want 20: 20/s for 2 s, one in two), %d dropped as missed (info says %d, want ≥ 10)",
				len(recs), missed, info.Missed)
		}
	})
}
