package verdict

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

func TestToolsUnseen(t *testing.T) {
	burn := summary.ToolCPU{Tool: "cpu_task", LiveS: 1.5, MeasuredS: 1.5, CPUS: 1.26, NoiseS: 0.02, PerCallS: 0.84}
	sleep := summary.ToolCPU{Tool: "slow_task", LiveS: 11.9, MeasuredS: 6.7, CPUS: 0.13, NoiseS: 0.05, PerCallS: 0.011}
	// The whole load's figure: visible, threads computing (the trial's).
	cpu := func(tools ...summary.ToolCPU) *summary.ProcessCPU {
		return &summary.ProcessCPU{LoadRate: 0.4, PerCallS: 0.12, Tools: tools,
			CPUBound: summary.CPUBound{Threads: 2, Slices: 400, Preempted: 300, AllSlices: 800, AllPreempted: 300}}
	}
	atLoad := func(perCall float64, p *summary.ProcessCPU) *summary.ProcessCPU { p.PerCallS = perCall; return p }
	for _, tc := range []struct {
		name string
		cut  map[string]int
		p    *summary.ProcessCPU
		want string // a part of the reason; "" for none
	}{
		{"a sleeping tool cut beside a computing one", map[string]int{"slow_task": 11}, cpu(burn, sleep),
			"work of 1 tool the faults cut is not CPU it can see: slow_task (11 calls cut; its calls alone: 0.13 CPU-s above idle ±0.05 over 11.9 call-seconds"},
		{"the computing tool cut", map[string]int{"cpu_task": 4}, cpu(burn, sleep), ""},
		{"both cut", map[string]int{"cpu_task": 4, "slow_task": 1}, cpu(burn, sleep), "work of 1 tool the faults cut is not CPU it can see: slow_task (1 call cut"},
		{"nothing cut by a fault", nil, cpu(burn, sleep), ""},
		{"one tool: no figures by tool", map[string]int{"slow_task": 11}, cpu(), ""},
		{"the cut tool too little alone", map[string]int{"slow_task": 11}, cpu(burn, summary.ToolCPU{Tool: "slow_task", LiveS: 0.9}), ""},
		{"the cut tool never alone", map[string]int{"slow_task": 11}, cpu(burn, summary.ToolCPU{Tool: "slow_task"}), ""},
		{"within the noise of visible", map[string]int{"slow_task": 11}, cpu(burn,
			summary.ToolCPU{Tool: "slow_task", LiveS: 10, CPUS: 0.46, NoiseS: 0.05, PerCallS: 0.046}), ""},
		{"no process probe", map[string]int{"slow_task": 11}, nil, ""},
		// A CPU-bound cut tool starved near the threshold, beside a tool
		// of little CPU: alone it reads about what the load reads, and the
		// load's figure judges it.
		{"the cut tool is the load", map[string]int{"slow_task": 11}, atLoad(0.052, cpu(summary.ToolCPU{Tool: "echo", LiveS: 0.1, CPUS: 0.001},
			summary.ToolCPU{Tool: "slow_task", LiveS: 10, CPUS: 0.44, NoiseS: 0.03, PerCallS: 0.044})), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := summary.Cancellation{CutTools: tc.cut, ProcessCPU: tc.p, Windows: summary.Windows{Count: 2}}
			got := toolsUnseen(c)
			if tc.want == "" {
				if got != "" {
					t.Errorf("toolsUnseen = %q, want none", got)
				}
				return
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("toolsUnseen = %q, want it to contain %q", got, tc.want)
			}
			// The run's verdict reads it: not_observable, not pass.
			if why := unobservable(c); why != got {
				t.Errorf("unobservable = %q, want the tools' reason %q", why, got)
			}
		})
	}
}
