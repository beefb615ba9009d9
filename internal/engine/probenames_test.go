package engine

import (
	"slices"
	"testing"
)

func TestProbeNames(t *testing.T) {
	metric := ProbeSpec{Name: "metric_busy", Metric: &MetricProbe{Name: "busy"}}
	proc := ProbeSpec{Name: "server_cpu", Process: &ProcessProbe{PID: 7}}
	tests := []struct {
		name string
		plan Plan
		want []string
	}{
		{"none", Plan{Target: Target{HTTP: nil}}, []string{}},
		{"the scenario's", Plan{Orphans: Orphans{Probes: []ProbeSpec{metric}}}, []string{"metric_busy"}},
		{"builtin over http", Plan{Target: Target{Builtin: &Builtin{Transport: "http"}}}, []string{BuiltinProbe}},
		{"builtin over stdio watches its processes", Plan{Target: Target{Builtin: &Builtin{Transport: "stdio"}}}, []string{BuiltinProbe, DefaultProcessProbe}},
		{"stdio", Plan{Target: Target{Stdio: &StdioTarget{}}, Orphans: Orphans{Probes: []ProbeSpec{metric}}}, []string{"metric_busy", DefaultProcessProbe}},
		{"http with a pid", Plan{Target: Target{PID: 3}}, []string{DefaultProcessProbe}},
		{"the scenario's process probe replaces the default", Plan{Target: Target{Stdio: &StdioTarget{}}, Orphans: Orphans{Probes: []ProbeSpec{proc}}}, []string{"server_cpu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.plan.ProbeNames(); !slices.Equal(got, tt.want) {
				t.Errorf("ProbeNames() = %q, want %q", got, tt.want)
			}
		})
	}
	if got := (Plan{Orphans: Orphans{Probes: []ProbeSpec{metric, proc}}}).procName(); got != "server_cpu" {
		t.Errorf("procName() = %q, want the scenario's process probe's", got)
	}
}
