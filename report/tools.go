package report

import "github.com/mcpchaos/mcpchaos/results"

// toolsMax bounds the per-tool breakdown: a scenario names its tools, so
// this is only a guard; calls of further tools are counted under
// otherTools.
const (
	toolsMax   = 100
	otherTools = "(other tools)"
)

// toolAgg is one tool's calls, outcomes and call latency.
type toolAgg struct {
	calls    int
	outcomes map[string]int
	lat      *hist // call latency, microseconds
}

// toolFor returns the tool's aggregate, creating it on the tool's first
// call: the lookup of a known tool does not allocate.
func (a *Aggregator) toolFor(name string) *toolAgg {
	if t := a.tools[name]; t != nil {
		return t
	}
	if len(a.tools) >= toolsMax {
		name = otherTools
		if t := a.tools[name]; t != nil {
			return t
		}
	}
	t := &toolAgg{outcomes: make(map[string]int), lat: newHist(latencyMaxUs)}
	a.tools[name] = t
	return t
}

func (a *Aggregator) addTool(r *results.Record) {
	t := a.toolFor(r.Tool)
	t.calls++
	t.outcomes[r.Outcome]++
	if r.ResponseUs > 0 {
		t.lat.record(r.ResponseUs)
	}
}

func (a *Aggregator) buildTools(s *Summary) {
	s.Tools = make(map[string]ToolStats, len(a.tools))
	for name, t := range a.tools {
		ts := ToolStats{Calls: t.calls, ByOutcome: make(map[string]int, len(t.outcomes))}
		for o, n := range t.outcomes {
			ts.ByOutcome[o] = n
		}
		if t.lat.count() > 0 {
			ts.LatencyMs = ToolLatency{P50: usToMs(t.lat.quantile(50)), P99: usToMs(t.lat.quantile(99))}
		}
		s.Tools[name] = ts
	}
}
