package report

import (
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestMRTR: the mrtr keys from records of each kind (a call answered
// after two rounds of elicitation, one whose load shedding was retried, a
// load-shedding answer left as throttled, an input_required left
// unanswered) and from a 2025 server's requests on no call's stream
// (report/text pins the Input block).
func TestMRTR(t *testing.T) {
	t0 := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	recs := []*results.Record{
		{Type: results.TypeCall, Outcome: results.OK, Scheduled: t0, SentUs: 1000, ResponseUs: 901000,
			Rounds: 2, Inputs: results.Counts{"elicitation": 2}, ThinkUs: 600000, ResultType: "complete"},
		{Type: results.TypeCall, Outcome: results.OK, Scheduled: t0, SentUs: 1000, ResponseUs: 51000,
			Rounds: 1, LoadShed: 1, ResultType: "complete"},
		{Type: results.TypeCall, Outcome: results.Throttled, ThrottleKind: "load_shed", Scheduled: t0, SentUs: 1000,
			ResponseUs: 2000, ResultType: "input_required"},
		{Type: results.TypeCall, Outcome: results.ProtocolError, Scheduled: t0, SentUs: 1000, ResponseUs: 2000,
			ResultType: "input_required", Violations: results.Counts{"undeclared_input": 1}},
	}
	a := NewAggregator(Rules{})
	a.SetConnection(client.Stats{InputRoots: 3})
	for _, r := range recs {
		a.Add(r)
	}
	s := a.Summary(Meta{Scenario: "mrtr"})
	m := s.MRTR
	want := MRTR{InputRequired: 3, LoadShed: 2, Rounds: 3, Calls: 2, Elicitation: 2, Roots: 3}
	m.ThinkMs, m.ServerMs = Latency{}, Latency{}
	if m != want {
		t.Errorf("mrtr %+v\nwant %+v", m, want)
	}
	if s.MRTR.ThinkMs.Max != 600 || s.MRTR.ServerMs.Max != 300 || s.MRTR.ThinkMs.Count != 2 {
		t.Errorf("think %+v, server %+v; want the 600 ms think apart from 300 ms of server time", s.MRTR.ThinkMs, s.MRTR.ServerMs)
	}
	if s.Protocol.Violations.UndeclaredInput != 1 {
		t.Errorf("undeclared_input %d, want 1", s.Protocol.Violations.UndeclaredInput)
	}
}
