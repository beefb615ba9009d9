package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestRunConfirm: against a real Go SDK server (the built-in target's
// deploy tool, which asks for confirmation by elicitation on every call),
// a scenario with client.elicitation completes every call, over HTTP and
// stdio, in the 2026 era (input_required, retried with the answer) and
// the 2025 era (elicitation/create, answered on the stream or pipe), and
// the server's own log (log_calls) shows each one done under the id of
// the request that did the work.
func TestRunConfirm(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ transport, protocol string }{
		{"http", "2026-07-28"}, {"http", "2025-11-25"}, {"stdio", "2026-07-28"}, {"stdio", "2025-06-18"},
	} {
		t.Run(tc.transport+" "+tc.protocol, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			log := filepath.Join(dir, "calls.log")
			src := fmt.Sprintf(`name: confirm
protocol: "%s"
target: {builtin: {transport: %s, confirm: true, log_calls: %q}}
load: {rate: 10/1s, duration: 1s}
timeouts: {idle: 5s, max: 10s, connect: 60s} # connect: a race-built target on a loaded machine starts slowly
calls: [{tool: deploy, arguments: {steps: 2, step_ms: 10}}]
client: {elicitation: {content: {confirm: true}, think: 20ms}}
orphans: {grace: 100ms}
`, tc.protocol, tc.transport, log)
			sum, out := filepath.Join(dir, "s.json"), filepath.Join(dir, "r.jsonl")
			code, stdout, stderr := runCLI(t, context.Background(), "run", writeScenario(t, "c.yaml", src), "-q", "--summary-json", sum, "--output", out)
			if code != 0 {
				t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			s := readJSON(t, sum)
			total := num(t, s, "calls.total")
			if total != 10 || num(t, s, "calls.ok") != total || num(t, s, "mrtr.elicitation") != total {
				t.Errorf("calls %v, mrtr %v: want 10 calls, each ok after one elicitation", s["calls"], s["mrtr"])
			}
			wantRounds := 0.0
			if tc.protocol == "2026-07-28" {
				wantRounds = total // 2025: the server asks by request, within the one call
			}
			if num(t, s, "mrtr.rounds") != wantRounds || num(t, s, "protocol.violations.total") != 0 {
				t.Errorf("rounds %v (want %v), violations %v", num(t, s, "mrtr.rounds"), wantRounds, num(t, s, "protocol.violations.total"))
			}
			done := testutil.CallsDone(t, log)
			f, err := results.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range f.Records {
				if !done[r.ID] {
					t.Errorf("call %d (seq %d) is not in the server's log as done", r.ID, r.Seq)
				}
			}
			if len(done) != len(f.Records) {
				t.Errorf("the server logged %d calls done, the run made %d", len(done), len(f.Records))
			}
		})
	}
}

// TestRunConfirmUnanswered: without a client section nothing is declared,
// so a correct 2026 server refuses the call (-32021) rather than ask; a
// declined confirmation is a tool error, and the server's ledger agrees.
func TestRunConfirmUnanswered(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, client, outcome string }{
		{"no client section", "", "rpc_error"},
		{"declined", "client: {elicitation: {action: decline}}\n", "tool_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := `name: unanswered
target: {builtin: {transport: http, confirm: true}}
load: {rate: 10/1s, duration: 500ms}
calls: [{tool: deploy, arguments: {steps: 1, step_ms: 1}}]
orphans: {grace: 100ms}
` + tc.client
			sum := filepath.Join(t.TempDir(), "s.json")
			code, stdout, stderr := runCLI(t, context.Background(), "run", writeScenario(t, "u.yaml", src), "-q", "--summary-json", sum)
			if code != 0 && code != 1 {
				t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			s := readJSON(t, sum)
			if total := num(t, s, "calls.total"); total != 5 || num(t, s, "calls."+tc.outcome) != total {
				t.Errorf("calls %v: want all 5 %s", s["calls"], tc.outcome)
			}
		})
	}
}

// TestRunContentMismatch: an accepted form whose content leaves out the
// required confirm is counted in mrtr.content_mismatch in every era and
// transport: a 2026 inputRequests form, a 2025 elicitation/create on the
// call's stream (HTTP) and one on stdout that names no call (stdio,
// counted on the connection).
func TestRunContentMismatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ transport, protocol string }{
		{"http", "2026-07-28"}, {"http", "2025-11-25"}, {"stdio", "2025-06-18"},
	} {
		t.Run(tc.transport+" "+tc.protocol, func(t *testing.T) {
			t.Parallel()
			src := fmt.Sprintf(`name: mismatch
protocol: "%s"
target: {builtin: {transport: %s, confirm: true}}
load: {rate: 10/1s, duration: 500ms}
timeouts: {idle: 5s, max: 10s}
calls: [{tool: deploy, arguments: {steps: 1, step_ms: 1}}]
client: {elicitation: {content: {other: 1}}}
orphans: {grace: 100ms}
`, tc.protocol, tc.transport)
			sum := filepath.Join(t.TempDir(), "s.json")
			code, stdout, stderr := runCLI(t, context.Background(), "run", writeScenario(t, "m.yaml", src), "-q", "--summary-json", sum)
			if code != 0 && code != 1 {
				t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			s := readJSON(t, sum)
			total := num(t, s, "calls.total")
			if total != 5 || num(t, s, "mrtr.elicitation") != total || num(t, s, "mrtr.content_mismatch") != total || num(t, s, "calls.ok") != 0 {
				t.Errorf("calls %v, mrtr %v: want 5 calls, none ok, each with one elicitation whose content did not fit", s["calls"], s["mrtr"])
			}
		})
	}
}
