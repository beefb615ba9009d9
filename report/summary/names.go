package summary

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/results"
)

// ThrottleKinds returns the kinds of throttling a call can meet, the
// names of throttling.by_kind.<kind> (the engine classifies calls into
// them: engine/classify.go).
func ThrottleKinds() []string {
	return []string{"http_429", "http_503", "rpc_code", "rpc_message", "tool_message", "load_shed"}
}

// serverCopings are how a server coped with a stalled reader, the names
// of faults.<kind>.server.<name> (engine/faults.go, coping).
var serverCopings = [...]string{"buffered", "dropped", "errored", "blocked"}

// Names are the names of placeholder segments that the caller knows and
// package report cannot: the fault kinds (package faults) and the probes a
// run reads (the engine adds its own to the scenario's). A nil list admits
// any name.
type Names struct {
	FaultKinds []string // faults.<kind>
	Probes     []string // cancellation.by_probe.<name>
}

// placeholders is the table of the summary's maps: every placeholder
// segment of KnownKeys, named by the key up to it, with what its names are
// and where they come from. Every one is known when a scenario is
// validated, so a check naming anything else is an error, not a silent 0.
var placeholders = [...]struct {
	prefix string
	what   string
	names  func(sc *scenarios.Scenario, n Names) []string
}{
	{"cancellation.by_probe." + placeholderName, "probe", func(_ *scenarios.Scenario, n Names) []string { return n.Probes }},
	{"throttling.by_kind." + placeholderKind, "throttling kind", func(*scenarios.Scenario, Names) []string { return ThrottleKinds() }},
	{"timeouts.policies." + placeholderName, "timeout policy", policyNames},
	{"faults." + placeholderKind, "fault kind", func(_ *scenarios.Scenario, n Names) []string { return n.FaultKinds }},
	{"faults." + placeholderKind + ".server." + placeholderName, "server coping", func(*scenarios.Scenario, Names) []string { return serverCopings[:] }},
	{"tools." + placeholderTool, "tool", toolNames},
	{"tools." + placeholderTool + ".by_outcome." + placeholderOutcome, "outcome", func(*scenarios.Scenario, Names) []string { return results.Outcomes }},
	{"gateway.era_seen." + placeholderName, "protocol revision", eraNames},
}

// eraNames are the revisions a target may say it was spoken to in.
func eraNames(*scenarios.Scenario, Names) []string {
	var out []string
	for _, e := range client.Eras() {
		out = append(out, string(e))
	}
	return out
}

// toolNames are the tools the scenario calls (the per-tool table of a run
// holds no others, but for "(other tools)" past its bound).
func toolNames(sc *scenarios.Scenario, _ Names) []string {
	if sc == nil {
		return nil
	}
	var names []string
	for _, c := range sc.Calls {
		if !slices.Contains(names, c.Tool) {
			names = append(names, c.Tool)
		}
	}
	return names
}

func policyNames(sc *scenarios.Scenario, _ Names) []string {
	if sc == nil {
		return nil
	}
	names := make([]string, len(sc.Timeouts.Policies))
	for i, p := range sc.Timeouts.Policies {
		names[i] = p.Name
	}
	return names
}

// domain is the names one placeholder segment admits.
type domain struct {
	what  string
	names []string
}

// domains returns the names every placeholder admits in a run of sc (nil:
// any name anywhere).
func domains(sc *scenarios.Scenario, n Names) map[string]domain {
	d := make(map[string]domain, len(placeholders))
	for _, p := range placeholders {
		if names := p.names(sc, n); names != nil {
			d[p.prefix] = domain{what: p.what, names: names}
		}
	}
	return d
}

// unknownName checks each placeholder segment of pattern against the
// names its domain admits, and describes the first name of key that is not
// one ("" when all are).
func unknownName(key, pattern string, doms map[string]domain) string {
	segs, pat := strings.Split(key, "."), strings.Split(pattern, ".")
	for i, p := range pat {
		if !strings.HasPrefix(p, "<") {
			continue
		}
		dom, ok := doms[strings.Join(pat[:i+1], ".")]
		if !ok || slices.Contains(dom.names, segs[i]) {
			continue
		}
		if len(dom.names) == 0 {
			return fmt.Sprintf("unknown %s %q: this run has none", dom.what, segs[i])
		}
		hint := ""
		if s := scenarios.Suggest(segs[i], dom.names); s != "" {
			hint = fmt.Sprintf("did you mean %q? ", s)
		}
		return fmt.Sprintf("unknown %s %q (%sknown: %s)", dom.what, segs[i], hint, strings.Join(dom.names, ", "))
	}
	return ""
}
