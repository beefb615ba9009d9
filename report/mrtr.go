package report

import (
	"github.com/mcpchaos/mcpchaos/results"
)

// mrtrAgg accumulates MRTR over records.
type mrtrAgg struct {
	s             MRTR
	think, server *hist // microseconds
}

func (m *mrtrAgg) add(r *results.Record) {
	if m.think == nil {
		m.think, m.server = newHist(latencyMaxUs), newHist(latencyMaxUs)
	}
	withInputs := r.Rounds - r.LoadShed
	if r.ResultType == "input_required" {
		if r.ThrottleKind == "load_shed" {
			m.s.LoadShed++
		} else {
			withInputs++ // the last answer, not retried
		}
	}
	m.s.InputRequired += max(withInputs, 0)
	m.s.LoadShed += r.LoadShed
	m.s.Rounds += r.Rounds
	m.s.Elicitation += r.Inputs["elicitation"]
	m.s.Sampling += r.Inputs["sampling"]
	m.s.Roots += r.Inputs["roots"]
	m.s.ContentMismatch += r.ContentMismatch
	if r.Rounds == 0 && r.ThinkUs == 0 {
		return
	}
	if r.Rounds > 0 {
		m.s.Calls++
	}
	m.think.record(r.ThinkUs)
	if r.ResponseUs > 0 && r.SentUs > 0 {
		m.server.record(max(r.ResponseUs-r.SentUs-r.ThinkUs, 0))
	}
}

// summary returns the counts, with a 2025 server's requests that came on
// no call's stream (conn) added to the kinds.
func (m *mrtrAgg) summary(a *Aggregator) MRTR {
	s := m.s
	s.Elicitation += int(a.conn.InputElicitation)
	s.Sampling += int(a.conn.InputSampling)
	s.Roots += int(a.conn.InputRoots)
	s.ContentMismatch += int(a.conn.ContentMismatch)
	if m.think != nil {
		s.ThinkMs, s.ServerMs = m.think.latency(), m.server.latency()
	}
	return s
}
