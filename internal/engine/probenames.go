package engine

import "github.com/mcpchaos/mcpchaos/internal/probes"

// Names of the probes the engine adds to a scenario's (see newProbeRun).
const (
	// BuiltinProbe reads the built-in target's own count of running calls:
	// its in-flight gauge over HTTP, its inflight tool over stdio.
	BuiltinProbe = "builtin_inflight"
	// DefaultProcessProbe watches the processes the run started (a stdio target)
	// or the HTTP target's pid, when the scenario has no process probe.
	DefaultProcessProbe = "process"
)

// ProbeNames returns the name of every probe a run of the plan reads, the
// scenario's and then the engine's own: the names checks may use in
// cancellation.by_probe.NAME. It decides what newProbeRun builds.
func (p Plan) ProbeNames() []string {
	names := []string{}
	proc := false
	for _, s := range p.Orphans.Probes {
		names = append(names, s.Name)
		proc = proc || s.Process != nil
	}
	if p.Target.Builtin != nil {
		names = append(names, BuiltinProbe)
	}
	if !proc && p.autoProcess() {
		names = append(names, DefaultProcessProbe)
	}
	return names
}

// autoProcess reports whether the run watches its target's processes
// without being asked: a stdio target (we started it) or an HTTP target
// with a pid.
func (p Plan) autoProcess() bool {
	stdio := p.Target.Stdio != nil || (p.Target.Builtin != nil && p.Target.Builtin.Transport == "stdio")
	return stdio || p.Target.PID != 0
}

// procName is the name of the run's one process probe: the scenario's
// last process probe's, or DefaultProcessProbe.
func (p Plan) procName() string {
	name := DefaultProcessProbe
	for _, s := range p.Orphans.Probes {
		if s.Process != nil {
			name = s.Name
		}
	}
	return name
}

// named is a probe read under the name checks address it by.
type named struct {
	probes.Probe
	name string
}

func (n named) Name() string { return n.name }
