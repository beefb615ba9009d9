package merge

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestMergeSharedLeak: three shards of one run shared a server whose
// in-flight gauge (baseline 1) they all sampled, each at its own instants.
// The server ran every shard's calls, and 2 calls more from 2 s to 3.5 s
// that nobody waited for: 3 leaked call-seconds, which only the sum of the
// shards' calls in flight shows (each shard alone sees the others' calls
// as leaked; the shards record none). The largest baseline counts (0.5
// would make 5). Without every shard, without a leak probe in every shard
// (its baseline could not be read), with shards naming different leak
// probes, or without samples, nothing is measured — never 0 as if
// measured: the merge's notes and the probe notes say why.
func TestMergeSharedLeak(t *testing.T) {
	f, err := results.Open(runFile)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	type pt struct{ s, client, server float64 }
	shards := []struct {
		baseline float64
		samples  []pt
	}{
		{1, []pt{{0, 2, 3}, {1, 2, 5}, {2, 0, 7}, {3, 0, 3}, {4, 0, 1}}},
		{1, []pt{{0.5, 1, 4}, {1.5, 3, 7}, {2.5, 0, 4}, {3.5, 0, 1}}},
		{0.5, []pt{{0, 0, 3}, {1, 1, 5}, {2, 1, 7}, {3, 0, 3}, {4, 0, 1}}},
	}
	dir := t.TempDir()
	// write writes the three shards' files under name, the leak probe
	// shard i names being probe(i), with their samples or none.
	write := func(name string, probe func(i int) string, samples bool) []string {
		var paths []string
		for i, sh := range shards {
			h := f.Header
			h.Transport = "http"
			h.Shard = &results.Shard{Index: i, Count: len(shards), StartAt: t0}
			in := report.RunInputs{Duration: 4 * time.Second, Orphans: report.Orphans{Drained: true, ProbeErrors: []string{report.SharedLeakNote},
				Shared: &report.SharedServer{AfterAll: true, LeakProbe: probe(i), Baseline: sh.baseline, ServerProbes: []string{"gauge", "other"}}}}
			tr := results.Trailer{Type: results.TypeTrailer, Ended: t0.Add(5 * time.Second), Run: mustInputs(t, in)}
			lines := []any{&h}
			for _, p := range sh.samples {
				if samples {
					lines = append(lines, &results.Sample{Type: results.TypeSample, T: t0.Add(time.Duration(p.s * float64(time.Second))),
						ClientInFlight: int(p.client), Probes: map[string]float64{"gauge": p.server, "other": p.server}})
				}
			}
			path := filepath.Join(dir, name+"-"+string(rune('0'+i))+".jsonl")
			writeLines(t, path, append(lines, &tr)...)
			paths = append(paths, path)
		}
		return paths
	}
	gauge := func(int) string { return "gauge" }
	paths := write("shard", gauge, true)
	for _, tt := range []struct {
		name   string
		paths  []string
		leaked float64
		note   string
	}{
		{name: "every shard", paths: paths, leaked: 3},
		{name: "any order", paths: []string{paths[2], paths[0], paths[1]}, leaked: 3},
		{name: "one missing", paths: paths[:2], note: "leaked call-seconds of the shared server not measured: without shards 2"},
		{name: "a shard without a leak probe", paths: write("unread", func(i int) string { return []string{"gauge", "", "gauge"}[i] }, true),
			note: "unread-1.jsonl has no leak probe"},
		{name: "shards name different leak probes", paths: write("differ", func(i int) string { return []string{"gauge", "gauge", "other"}[i] }, true),
			note: "the shards measure leaked work with different probes (gauge, other)"},
		{name: "no samples", paths: write("empty", gauge, false), note: "no shard recorded a sample of gauge"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Merge(context.Background(), tt.paths, MergeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			o := m.Inputs.Orphans
			if math.Abs(o.LeakedCallSeconds-tt.leaked) > 1e-9 {
				t.Errorf("leaked call-seconds %g, want %g", o.LeakedCallSeconds, tt.leaked)
			}
			if s := m.Summary(); math.Abs(s.Cancellation.LeakedCallSeconds-tt.leaked) > 1e-9 {
				t.Errorf("the summary's leaked call-seconds %g, want %g", s.Cancellation.LeakedCallSeconds, tt.leaked)
			}
			has := func(list []string) bool {
				return slices.ContainsFunc(list, func(n string) bool { return tt.note != "" && strings.Contains(n, tt.note) })
			}
			if has(m.Notes) != (tt.note != "") || has(o.ProbeErrors) != (tt.note != "") || slices.Contains(o.ProbeErrors, report.SharedLeakNote) {
				t.Errorf("notes %q, probe notes %q; want the note %q in both, and never the shards' note", m.Notes, o.ProbeErrors, tt.note)
			}
		})
	}
}

// writeLines writes a results file line by line (a header first).
func writeLines(t *testing.T, path string, lines ...any) {
	t.Helper()
	w, err := results.Create(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if err := w.Write(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
