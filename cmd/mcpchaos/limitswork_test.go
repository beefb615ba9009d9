package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLimitsRefusalWork: `limits` against the built-in target over stdio
// (whose process the process probe watches) reads the server's CPU
// around the hold and an idle span: with refusal_work (each refusal burns
// 20 ms of CPU first) refusals are costly at several CPU-ms each, without
// it they cost no work; over HTTP, served in our own process, there is no
// process probe and the answer is unknown. It runs the built binary, not
// the test's own: a target built with -race read 1.5 to 2.7 CPU-ms a
// refusal (1.1 to 2.0 an accepted call), near the 2 ms that makes a
// refusal costly, and read costly on a busy CI machine.
func TestLimitsRefusalWork(t *testing.T) {
	tests := []struct {
		name      string
		transport string
		knob      string
		want      string
		minMs     float64 // -1: null
		maxMs     float64
	}{
		{"refusals burn 20 ms", "stdio", ", refusal_work: 20ms", "costly", 5, 1e9},
		{"refusals burn nothing", "stdio", "", "none", 0, 15},
		{"no process probe", "http", ", refusal_work: 20ms", "unknown", -1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeScenario(t, "work.yaml", fmt.Sprintf(`name: refusal-work
seed: 1
target: {builtin: {transport: %s, rate_limit: 10/1s, rate_limit_kind: token_bucket, rate_limit_signal: rpc_code%s}}
load: {rate: 1/1s, duration: 1s}
timeouts: {idle: 5s, max: 10s}
calls: [{tool: echo, arguments: {text: hi}}]
orphans: {grace: 100ms}
`, tt.transport, tt.knob))
			sum := filepath.Join(t.TempDir(), "s.json")
			var out, errb strings.Builder
			cmd := exec.CommandContext(t.Context(), bin.Need(t), "limits", path, "-q", "--budget", "15s", "--max-rate", "40/1s", "--summary-json", sum)
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				t.Fatalf("mcpchaos limits: %v; stderr:\n%s", err, errb.String())
			}
			stdout := out.String()
			for _, line := range strings.Split(stdout, "\n") {
				if strings.Contains(line, "refusal work") {
					t.Log(strings.TrimSpace(line))
				}
			}
			m := readJSON(t, sum)
			got, _ := lookup(m, "limits.overload.refusal_work")
			if got != tt.want || !strings.Contains(stdout, "refusal work "+tt.want) {
				t.Fatalf("limits.overload.refusal_work = %v, want %s on the card too; stdout:\n%s", got, tt.want, stdout)
			}
			ms, _ := lookup(m, "limits.overload.refusal_cpu_ms")
			switch {
			case tt.minMs < 0 && ms != nil:
				t.Errorf("limits.overload.refusal_cpu_ms = %v, want null", ms)
			case tt.minMs >= 0 && (ms == nil || ms.(float64) < tt.minMs || ms.(float64) > tt.maxMs):
				t.Errorf("limits.overload.refusal_cpu_ms = %v, want %v to %v; stdout:\n%s", ms, tt.minMs, tt.maxMs, stdout)
			}
		})
	}
}
