package report

import (
	"github.com/mcpchaos/mcpchaos/results"
)

// MRTR is what servers asked of the client during calls, and what
// answering cost (docs/long-running.md): the input_required results of
// 2026 and the input requests of 2025 servers.
type MRTR struct {
	// InputRequired counts the input_required results received that
	// carried input requests; LoadShed those that carried only
	// requestState (load shedding), whether retried or not.
	InputRequired int `json:"input_required"`
	LoadShed      int `json:"load_shed"`
	// Rounds counts the retries made to answer them.
	Rounds int `json:"rounds"`
	// Calls counts the calls that made at least one retry.
	Calls int `json:"calls"`
	// Elicitation, Sampling and Roots count the input requests answered,
	// by kind: entries of 2026 inputRequests, and 2025 requests.
	Elicitation int `json:"elicitation"`
	Sampling    int `json:"sampling"`
	Roots       int `json:"roots"`
	// ContentMismatch counts accepted forms whose content, from the
	// scenario, did not fit the form's requestedSchema (both eras).
	ContentMismatch int `json:"content_mismatch"`
	// ThinkMs is the time the client waited before answering (the
	// client section's think times), per call that made a retry; ServerMs
	// is the rest of those calls' latency: from the first send to the last
	// answer, less the think time.
	ThinkMs  Latency `json:"think_ms"`
	ServerMs Latency `json:"server_ms"`
}

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
