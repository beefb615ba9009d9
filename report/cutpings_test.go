package report

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// TestCutPingsVerdict: with a process probe as the only evidence over
// HTTP, "no work seen" is a pass only when the server answered a ping sent
// right after every cut within the grace; one answered later (or never)
// makes it not_observable, and evidence of work is a violation all the
// same. The case of gosdk,http,stop, seed 15 of the agreement benchmark: a
// clean window, nothing on the wire, a cut the server saw 136 ms late.
func TestCutPingsVerdict(t *testing.T) {
	visible := func() *ProcessCPU { return &ProcessCPU{LoadRate: 1, PerCallS: 1} }
	clean := Windows{Count: 1, MeasuredMs: 1000}
	for _, tc := range []struct {
		name  string
		o     Orphans
		want  string
		has   string
		lacks string
	}{
		{"every ping in time", Orphans{CPU: visible(), Windows: clean, CutPings: &CutPings{Cuts: 14, WorstMs: 120, GraceMs: 300}},
			StatusPass, "no work seen", "ping"},
		{"a ping answered after cut + grace", Orphans{CPU: visible(), Windows: clean, CutPings: &CutPings{Cuts: 14, Late: 1, WorstMs: 436, GraceMs: 300}},
			StatusNotObservable, "the server answered the ping sent right after 1 of 14 cuts only after cut + grace (the slowest in 436ms, grace 300ms)", ""},
		{"no answer at all", Orphans{CPU: visible(), Windows: clean, CutPings: &CutPings{Cuts: 3, Late: 3, Unanswered: 3, GraceMs: 300}},
			StatusNotObservable, "3 of 3 cuts", ""},
		{"a late ping beside a window that saw work", Orphans{CPU: visible(), Windows: Windows{Count: 1, Above: 1, LeftoverCPUS: 0.3, MeasuredMs: 1000},
			CutPings: &CutPings{Cuts: 14, Late: 2, WorstMs: 900, GraceMs: 300}},
			StatusViolation, "showed leftover work", ""},
		{"a count probe sees calls whatever the CPU", Orphans{Counting: 1, ByProbe: map[string]float64{"inflight": 0}, CPU: visible(), Windows: clean,
			CutPings: &CutPings{Cuts: 14, Late: 2, WorstMs: 900, GraceMs: 300}},
			StatusPass, "", "ping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAggregator(Rules{ProgressGrace: 300 * time.Millisecond})
			a.Add(call(0, results.Cancelled, cancelAt(100), fault("cancel", 10)))
			a.SetOrphans(tc.o)
			v := verdictOf(t, a.Summary(testMeta("2026-07-28")), AreaCancellation)
			if v.Status != tc.want {
				t.Errorf("status = %q, want %q (evidence %q)", v.Status, tc.want, v.Evidence)
			}
			if tc.has != "" && !strings.Contains(v.Evidence, tc.has) {
				t.Errorf("evidence %q lacks %q", v.Evidence, tc.has)
			}
			if tc.lacks != "" && strings.Contains(v.Evidence, tc.lacks) {
				t.Errorf("evidence %q has %q", v.Evidence, tc.lacks)
			}
		})
	}
}

// TestMergeCutPings: merged runs add their cuts and late pings and keep
// the slowest answer.
func TestMergeCutPings(t *testing.T) {
	var o Orphans
	mergeCutPings(&o, Orphans{})
	if o.CutPings != nil {
		t.Fatalf("merging a run without pings made %+v, want nil", o.CutPings)
	}
	mergeCutPings(&o, Orphans{CutPings: &CutPings{Cuts: 5, Late: 1, WorstMs: 400, GraceMs: 300}})
	mergeCutPings(&o, Orphans{CutPings: &CutPings{Cuts: 7, Late: 2, Unanswered: 1, WorstMs: 350, GraceMs: 300}})
	want := CutPings{Cuts: 12, Late: 3, Unanswered: 1, WorstMs: 400, GraceMs: 300}
	if o.CutPings == nil || *o.CutPings != want {
		t.Errorf("merged %+v, want %+v", o.CutPings, want)
	}
}

// TestMergeContention: merged runs add their cuts and windows, keep the
// largest work per cut and share done, and the worst is the cut that ended
// the latest, with its own figures; the summary carries it (a copy, not
// the input).
func TestMergeContention(t *testing.T) {
	var o Orphans
	mergeContention(&o, Orphans{})
	if o.Contention != nil {
		t.Fatalf("merging a run without a projection made %+v, want nil", o.Contention)
	}
	first := &Contention{WorkPerCutS: 0.09, Windows: 3, DoneShare: 0.8, Cuts: 20, Unpaced: 1, Contended: 15, PastGrace: 2, Blind: 20,
		PastGraceBlind: 2, GraceMs: 300, WorstAtMs: 9000, WorstEndMs: 420, WorstLeft: 6, WorstPaceMs: 70, QuickPaceMs: 25}
	mergeContention(&o, Orphans{Contention: first})
	mergeContention(&o, Orphans{Contention: &Contention{WorkPerCutS: 0.12, Windows: 2, DoneShare: 0.9, Cuts: 10, Contended: 4, PastGrace: 1,
		GraceMs: 300, WorstAtMs: 4000, WorstEndMs: 510, WorstLeft: 5, WorstPaceMs: 102, QuickPaceMs: 26}})
	want := Contention{WorkPerCutS: 0.12, Windows: 5, DoneShare: 0.9, Cuts: 30, Unpaced: 1, Contended: 19, PastGrace: 3, Blind: 20,
		PastGraceBlind: 2, GraceMs: 300, WorstAtMs: 4000, WorstEndMs: 510, WorstLeft: 5, WorstPaceMs: 102, QuickPaceMs: 26}
	if o.Contention == nil || *o.Contention != want {
		t.Errorf("merged %+v, want %+v", o.Contention, want)
	}
	if first.Cuts != 20 {
		t.Errorf("the merge changed its input: %+v", first)
	}
	a := NewAggregator(Rules{})
	a.SetOrphans(o)
	if c := a.Summary(testMeta("2026-07-28")).Cancellation.Contention; c == nil || *c != want {
		t.Errorf("summary contention %+v, want %+v", c, want)
	}
}
