package main

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestRunChecksToolsBeforeLoad: a run whose scenario names a tool the
// server does not have, or gives arguments its inputSchema refuses, stops
// with exit 2 before any call: the target's /metrics count no tool call.
// --no-schema-check sends them anyway, and a call that a malformed fault
// always replaces is not checked.
func TestRunChecksToolsBeforeLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		calls string
		flags []string
		want  []string // on stderr; nil: the check let the run go
	}{
		{name: "unknown tool", calls: "  - {tool: echo, arguments: {text: hi}}\n  - {tool: slow_tsak}\n",
			want: []string{"check.yaml:8:5: calls[1]: the server has no tool \"slow_tsak\" (did you mean \"slow_task\"?); it has: cpu_task, echo, inflight, slow_task"}},
		{name: "arguments that do not match", calls: "  - {tool: slow_task, arguments: {steps: ten, step_ms: -5}}\n",
			want: []string{`check.yaml:7:5: calls[0].arguments: arguments do not match the inputSchema of tool "slow_task": at /step_ms: minimum: got -5, want 0; at /steps: got string, want integer`}},
		{name: "a tool probe", calls: "  - {tool: echo, arguments: {text: hi}}\norphans: {grace: 100ms, probes: [{tool: {name: in_flight}}]}\n",
			want: []string{`orphans.probes[0].tool: the server has no tool "in_flight" (did you mean "inflight"?)`}},
		{name: "no-schema-check sends them anyway", calls: "  - {tool: slow_task, arguments: {steps: ten}}\n", flags: []string{"--no-schema-check"}},
		{name: "always malformed is exempt", calls: "  - {tool: echo}\nfaults:\n  - {kind: malformed, mode: params}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			target := builtinHTTP(t)
			path := writeScenario(t, "check.yaml", `name: check
target:
  http: {url: "`+target.URL+`"}
load: {rate: 20/1s, duration: 500ms}
calls:
`+tt.calls)
			if !strings.Contains(tt.calls, "orphans:") {
				path = writeScenario(t, "check.yaml", strings.Replace(readFile(t, path), "calls:\n", "orphans: {grace: 100ms}\ncalls:\n", 1))
			}
			code, _, stderr := runCLI(t, context.Background(), append(append([]string{"run", "-q"}, tt.flags...), path)...)
			metrics := testutil.MustScrape(t, target.MetricsURL)
			if tt.want == nil {
				if code == 2 || strings.Contains(stderr, "inputSchema") {
					t.Fatalf("the check stopped the run: exit %d\n%s", code, stderr)
				}
				return
			}
			if code != 2 {
				t.Fatalf("exit %d, want 2\nstderr: %s", code, stderr)
			}
			for _, w := range append(tt.want, "mcpchaos run: "+noSchemaCheckHint) {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr)
				}
			}
			if n := metrics["mcpchaos_target_started_total"]; n != 0 {
				t.Errorf("the target's /metrics count %v tool calls started, want 0", n)
			}
			if _, ok := metrics["mcpchaos_target_started_total"]; !ok {
				t.Errorf("no mcpchaos_target_started_total in /metrics: %v", metrics)
			}
		})
	}
}
