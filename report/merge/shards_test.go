package merge

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// TestMergeShards: the shards of one run merge (a missing one is a note);
// shards of different splits, a shard twice, a whole run among shards,
// shards of another scenario or seed and the same whole run twice are
// refused with the reason, with or without SameScenario. Missing shards
// are named as ranges, however many.
func TestMergeShards(t *testing.T) {
	f, err := results.Open(runFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	at := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	file := func(name string, shard *results.Shard, edit func(*results.Header)) string {
		h := f.Header
		h.Shard = shard
		if edit != nil {
			edit(&h)
		}
		p := filepath.Join(dir, name)
		writeResults(t, p, h, f.Records[:2], f.Trailer)
		return p
	}
	of := func(i, n int) *results.Shard { return &results.Shard{Index: i, Count: n, StartAt: at} }
	s0, s1, s2 := file("s0.jsonl", of(0, 3), nil), file("s1.jsonl", of(1, 3), nil), file("s2.jsonl", of(2, 3), nil)
	again := file("again.jsonl", of(1, 3), nil)
	other := file("four.jsonl", of(3, 4), nil)
	whole := file("whole.jsonl", nil, nil)
	seed := file("seed.jsonl", of(2, 3), func(h *results.Header) { h.Seed = 77 })
	name := file("name.jsonl", of(2, 3), func(h *results.Header) { h.Scenario = "another" })
	skew := file("skew.jsonl", &results.Shard{Index: 2, Count: 3, StartAt: at.Add(time.Second)}, nil)
	copyOf := file("copy.jsonl", nil, nil)
	later := file("later.jsonl", nil, func(h *results.Header) { h.Started = h.Started.Add(time.Minute) })
	many := file("many.jsonl", of(2, results.MaxShards), nil)
	last := file("last.jsonl", of(results.MaxShards-1, results.MaxShards), nil)

	for _, tt := range []struct {
		name   string
		paths  []string
		refuse string // "" merges
		notes  []string
	}{
		{name: "all shards", paths: []string{s0, s1, s2}},
		{name: "any order", paths: []string{s2, s0, s1}},
		{name: "one missing", paths: []string{s0, s2}, notes: []string{"shards 1 of 3 missing: the merge holds 2/3 of the run's schedule"}},
		{name: "another start", paths: []string{s0, s1, skew}, notes: []string{"different --start-at times"}},
		{name: "a shard twice", paths: []string{s0, s1, again}, refuse: "s1.jsonl and " + again + " are both shard 1/3"},
		{name: "another split", paths: []string{s0, other}, refuse: "four.jsonl is shard 3/4 and " + s0 + " one of 3 shards"},
		{name: "a whole run after shards", paths: []string{s0, whole}, refuse: "whole.jsonl is a whole run and " + s0 + " a shard (0/3)"},
		{name: "shards after a whole run", paths: []string{whole, s1}, refuse: "s1.jsonl is shard 1/3 and " + whole + " a whole run"},
		{name: "another seed", paths: []string{s0, s1, seed}, refuse: "seed.jsonl ran another scenario than " + s0 + " (seed 77, not 13)"},
		{name: "another scenario", paths: []string{s0, name}, refuse: `scenario "another", not "golden-report"`},
		{name: "the same whole run twice", paths: []string{whole, later, copyOf},
			refuse: whole + " and " + copyOf + ` are the same run (scenario "golden-report", seed 13, started `},
		{name: "one file twice", paths: []string{whole, whole}, refuse: whole + " and " + whole + " are the same run"},
		{name: "two whole runs", paths: []string{whole, later}},
		{name: "missing shards as ranges", paths: []string{many, last},
			notes: []string{"shards 0-1, 3-9998 of 10000 missing: the merge holds 2/10000 of the run's schedule"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Merge(context.Background(), tt.paths, MergeOptions{})
			if tt.refuse != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refuse) {
					t.Fatalf("merge: %v, want an error with %q", err, tt.refuse)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Agg.Summary(m.Meta).Calls.Total; got != 2*len(tt.paths) {
				t.Errorf("%d calls, want %d", got, 2*len(tt.paths))
			}
			if len(m.Notes) != len(tt.notes) {
				t.Fatalf("notes %q, want %q", m.Notes, tt.notes)
			}
			for i, want := range tt.notes {
				if !strings.Contains(m.Notes[i], want) {
					t.Errorf("note %q, want %q", m.Notes[i], want)
				}
			}
		})
	}
}
