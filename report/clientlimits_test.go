package report

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/report/verdict"
	"github.com/mcpchaos/mcpchaos/results"
)

// clientLimitCase is one case of TestClientLimits: a run's records and
// pacer, whether a limit (the CPU) is hit, and what the run then says.
type clientLimitCase struct {
	name     string
	records  []*results.Record
	pacer    PacerLag
	wantHit  bool
	wantCPU  bool
	wantText []string
}

// clientLimitCases are TestClientLimits' cases.
func clientLimitCases() []clientLimitCase {
	fds := func(r *results.Record) { r.Limit, r.Error = results.LimitFDs, "dial tcp: socket: too many open files" }
	ports := func(r *results.Record) { r.Limit = results.LimitPorts }
	return []clientLimitCase{
		{name: "none", records: []*results.Record{call(0, results.OK, resp(5))}, pacer: PacerLag{Ticks: 1000, Late: 10}},
		{name: "out of fds", records: []*results.Record{call(0, results.OK, resp(5)), call(0, results.ClientLimit, fds), call(0, results.ClientLimit, fds)},
			wantHit: true, wantText: []string{"ulimit -n", "too many open files", "FAIL (the client ran out of file descriptors"}},
		{name: "out of ports", records: []*results.Record{call(0, results.ClientLimit, ports)},
			wantHit: true, wantText: []string{"ip_local_port_range", "local ports"}},
		{name: "pacer late over 1%", records: []*results.Record{call(0, results.OK, resp(5))}, pacer: PacerLag{Ticks: 1000, Late: 11, MaxLagMs: 2500, BoundMs: 500, LateSpanMs: 5500},
			wantHit: true, wantCPU: true, wantText: []string{"out of CPU", "ran out of CPU"}},
		{name: "pacer late over 1%, caught up within 5 s", records: []*results.Record{call(0, results.OK, resp(5))},
			pacer: PacerLag{Ticks: 40, Late: 12, MaxLagMs: 1500, BoundMs: 1000, LateSpanMs: 600}},
		// 20,000 echo calls/s for 10 s (docs/performance.md, "Calls per
		// second"): the pacer fell behind in the last seconds and the load
		// ran 1.9 s long; 1.5 s of the schedule late is under 5 s, and the
		// summary named no limit, but the pacer never caught up.
		{name: "pacer never caught up", records: []*results.Record{call(0, results.OK, resp(5))},
			pacer:   PacerLag{Ticks: 200000, Late: 30103, MaxLagMs: 2388, BoundMs: 1000, LateSpanMs: 1505, EndLagMs: 1929},
			wantHit: true, wantCPU: true, wantText: []string{"out of CPU", "ran out of CPU"}},
		// 20,000 echo calls/s for 10 s, caught up by the end: over 1 s late
		// on 35% of the ticks, through 3.5 s of the schedule.
		{name: "pacer late on a third of the ticks", records: []*results.Record{call(0, results.OK, resp(5))},
			pacer:   PacerLag{Ticks: 200000, Late: 69700, MaxLagMs: 2975, BoundMs: 1000, LateSpanMs: 3485, EndLagMs: 40},
			wantHit: true, wantCPU: true, wantText: []string{"out of CPU", "ran out of CPU"}},
		// A 3 s stall in a 60 s load at 20/s: 2 s of the schedule late,
		// 3% of the ticks.
		{name: "a long stall in a long run", records: []*results.Record{call(0, results.OK, resp(5))},
			pacer: PacerLag{Ticks: 1200, Late: 40, MaxLagMs: 3000, BoundMs: 1000, LateSpanMs: 2000}},
		// A stall of 1.5 s at the end of a 2 s load at 20/s: behind at the
		// end, but only its last 0.5 s of schedule was over 1 s late.
		{name: "a stall at the end", records: []*results.Record{call(0, results.OK, resp(5))},
			pacer: PacerLag{Ticks: 40, Late: 10, MaxLagMs: 1500, BoundMs: 1000, LateSpanMs: 500, EndLagMs: 1450}},
		// 32,000 echo calls/s from a client on one core, the server on the
		// other (docs/performance.md): the client's core whole, 57,896
		// calls dropped, the pacer at most 258 ms late.
		{name: "client busy, calls dropped", records: []*results.Record{call(0, results.OK, resp(5)), call(0, results.Dropped)},
			pacer:   PacerLag{Ticks: 320000, MaxLagMs: 258, BoundMs: 1000, CPUShare: 0.98, CPUs: 1},
			wantHit: true, wantCPU: true, wantText: []string{"used its CPUs whole", "ran out of CPU"}},
		{name: "client busy, nothing dropped", records: []*results.Record{call(0, results.OK, resp(5))},
			pacer: PacerLag{Ticks: 1000, BoundMs: 1000, CPUShare: 0.98, CPUs: 1}},
		{name: "calls dropped, client not busy", records: []*results.Record{call(0, results.OK, resp(5)), call(0, results.Dropped)},
			pacer: PacerLag{Ticks: 1000, BoundMs: 1000, CPUShare: 0.6, CPUs: 2}},
		{name: "pacer late, too few ticks", records: []*results.Record{call(0, results.OK, resp(5))}, pacer: PacerLag{Ticks: 100, Late: 9, BoundMs: 500}},
	}
}

func TestClientLimits(t *testing.T) {
	for _, tc := range clientLimitCases() {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAggregator(Rules{})
			a.SetInputs(RunInputs{Pacer: tc.pacer})
			for _, r := range tc.records {
				a.Add(r)
			}
			s := a.Summary(Meta{Scenario: "s"})
			s.Evaluate(nil, true)
			c := s.ClientLimits
			if c.Hit != tc.wantHit || c.CPU != tc.wantCPU || s.Pass == tc.wantHit {
				t.Fatalf("hit %v, cpu %v, pass %v; want hit %v, cpu %v", c.Hit, c.CPU, s.Pass, tc.wantHit, tc.wantCPU)
			}
			dropped := 0 // dropped calls are failures whoever dropped them
			for _, r := range tc.records {
				if r.Outcome == results.Dropped {
					dropped++
				}
			}
			if s.Errors.Total != dropped {
				t.Errorf("errors.total %d, want the %d dropped: client_limit calls counted as the server's failures", s.Errors.Total, dropped)
			}
			for _, v := range s.Verdicts {
				if v.Status == StatusViolation {
					t.Errorf("verdict %s is a violation: %s", v.Area, v.Evidence)
				}
			}
			// What the text prints of it (report/text pins the block).
			said := strings.Join(append(append(slices.Clone(c.Advice), slices.Collect(maps.Values(c.Example))...), s.Result()), "\n")
			if !tc.wantHit && (len(c.Advice) > 0 || len(c.Example) > 0) {
				t.Errorf("advice without a limit hit: %s", said)
			}
			for _, want := range tc.wantText {
				if !strings.Contains(said, want) {
					t.Errorf("the advice, examples and result line have no %q:\n%s", want, said)
				}
			}
		})
	}
}

func TestMergeInputsPacer(t *testing.T) {
	got := MergeInputs([]RunInputs{{Pacer: PacerLag{Ticks: 100, Late: 1, MaxLagMs: 600, BoundMs: 500, LateSpanMs: 10, EndLagMs: 700}},
		{Pacer: PacerLag{Ticks: 50, Late: 20, MaxLagMs: 3000, BoundMs: 500, LateSpanMs: 400, EndLagMs: 20}}}).Pacer
	if want := (PacerLag{Ticks: 150, Late: 21, MaxLagMs: 3000, BoundMs: 500, LateSpanMs: 400, EndLagMs: 700}); got != want {
		t.Errorf("merged pacer %+v, want %+v", got, want)
	}
}

// TestResultUnderClientLimit: a run that hit a client limit says so first
// on its Result line, and a verdict's violation beside it is said to have
// been seen while the client was the limit (at 20,000 echo calls/s the
// line read "violation in protocol; the client ran out of CPU").
func TestResultUnderClientLimit(t *testing.T) {
	a := NewAggregator(Rules{})
	a.SetInputs(RunInputs{Pacer: PacerLag{Ticks: 200000, Late: 65166, MaxLagMs: 2262, BoundMs: 1000, LateSpanMs: 3258}})
	a.Add(call(0, results.OK, resp(5)))
	s := a.Summary(Meta{Scenario: "s"})
	for i := range s.Verdicts {
		if s.Verdicts[i].Area == AreaProtocol {
			s.Verdicts[i].Status = StatusViolation
		}
	}
	s.Evaluate(nil, true)
	want := "FAIL (the client ran out of CPU: the server was not given the load asked for; violation in protocol, seen while the client was the limit)"
	if got := s.Result(); got != want {
		t.Errorf("Result %q, want %q", got, want)
	}
}

// TestOneStallIsNoLimit: under the two shorter CPU rules, the late ticks
// of one stall of the whole process are no limit, where a pacer that fell
// behind as long is one: 0.9 s to 3.1 s of a 2 s load at 40/s (44 of 80
// ticks late, 1.1 s of the schedule, 1.1 s behind at the end, the first
// late tick 2.2 s late), and 3 s in a 20 s load at 20/s (10% of the
// ticks); against them the two 20,000/s runs of TestClientLimits.
func TestOneStallIsNoLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pacer PacerLag
		want  bool
	}{
		{"one stall across the end of a short load", PacerLag{Ticks: 80, Late: 44, MaxLagMs: 2200, BoundMs: 1000, LateSpanMs: 1100, EndLagMs: 1125}, false},
		{"one stall over a tenth of the ticks", PacerLag{Ticks: 400, Late: 40, MaxLagMs: 3000, BoundMs: 1000, LateSpanMs: 2000, EndLagMs: 10}, false},
		{"fell behind, never caught up", PacerLag{Ticks: 200000, Late: 30103, MaxLagMs: 2388, BoundMs: 1000, LateSpanMs: 1505, EndLagMs: 1929}, true},
		{"fell behind on a third of the ticks", PacerLag{Ticks: 200000, Late: 69700, MaxLagMs: 2975, BoundMs: 1000, LateSpanMs: 3485, EndLagMs: 40}, true},
		{"one stall through 6 s of the schedule", PacerLag{Ticks: 400, Late: 120, MaxLagMs: 7000, BoundMs: 1000, LateSpanMs: 6000}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.pacer.cpuLimit(); got != tc.want {
				t.Errorf("cpuLimit(%+v) = %v, want %v", tc.pacer, got, tc.want)
			}
		})
	}
}

// TestProtocolUnderClientLimit: streams left open past the late window
// while the client was short of CPU are not held against the server (the
// protocol verdict cannot tell, and says so); other broken rules still are;
// and without a client limit the same streams are a violation.
func TestProtocolUnderClientLimit(t *testing.T) {
	starved := RunInputs{Pacer: PacerLag{Ticks: 200000, Late: 65166, MaxLagMs: 2262, BoundMs: 1000, LateSpanMs: 3258}}
	for _, tc := range []struct {
		name      string
		in        RunInputs
		notClosed int
		other     bool // one more violation: a bad content type
		want      string
	}{
		{"starved, streams left open", starved, 3, false, StatusNotObservable},
		{"starved, streams left open and a broken rule", starved, 3, true, StatusViolation},
		{"within means, streams left open", RunInputs{}, 3, false, StatusViolation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAggregator(Rules{})
			a.SetInputs(tc.in)
			a.Add(call(0, results.OK, resp(5)))
			s := a.Summary(Meta{Scenario: "s"})
			s.Protocol.Violations.StreamNotClosed = tc.notClosed
			s.Protocol.Violations.Total = tc.notClosed
			if tc.other {
				s.Protocol.Violations.ContentType = 1
				s.Protocol.Violations.Total++
			}
			var got Verdict
			for _, v := range verdict.Score(s, a.Evidence()) {
				if v.Area == AreaProtocol {
					got = v
				}
			}
			if got.Status != tc.want {
				t.Errorf("protocol verdict %q (%s), want %q", got.Status, got.Evidence, tc.want)
			}
			if tc.in.Pacer.Late > 0 && !strings.Contains(got.Evidence, "not held against the server") {
				t.Errorf("evidence %q does not say the open streams are not held against the server", got.Evidence)
			}
		})
	}
}
