package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestValidateAndRunAgree: validate and run do their static checking in one
// function (engine.Prepare), so every invalid file gets the same exit
// status (2) and the same problem lines from both, each at the offending
// field's own line:column.
func TestValidateAndRunAgree(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      string // the one problem line, or its start
	}{
		{"knob out of range", strings.Replace(echoScenario, "builtin: {transport: http}", "builtin: {transport: http, progress_flood_hz: 5000}", 1),
			`4:49: target.builtin.progress_flood_hz: invalid value "5000" (want a number from 0 to 1000)`},
		{"knob rate above the limit", strings.Replace(echoScenario, "builtin: {transport: http}", "builtin:\n    rate_limit: 2000000/1s", 1),
			`5:17: target.builtin.rate_limit: invalid value "2000000/1s" (want N/PERIOD with N from 1 to 1000000 and PERIOD above zero)`},
		{"bad URL port", strings.Replace(echoScenario, "builtin: {transport: http}", "http: {url: 'http://127.0.0.1:99999/mcp'}", 1),
			`4:15: target.http.url: invalid URL "http://127.0.0.1:99999/mcp": port 99999 is not between 1 and 65535`},
		{"bad fault param", echoScenario + "faults:\n  - {kind: cancel, after: 1s, probability: 1.5}\n",
			`11:44: faults[0].probability: probability 1.5 is outside 0..1`},
		{"bad regex", echoScenario + "throttling: {message: '(x'}\n",
			"10:23: throttling.message: invalid regular expression \"(x\": error parsing regexp: missing closing ): `(x`"},
		{"bad check key", echoScenario + "checks:\n  - calls.nope > 0\n",
			`11:5: check "calls.nope > 0": unknown key "calls.nope"`},
		{"unknown key", echoScenario + "lod: {rate: 1/s}\n",
			`10:1: unknown key "lod" (known: name, seed, protocol, target, load, timeouts, calls, faults, orphans, progress, throttling, identities, client, gateway, checks, fail_on_violation)`},
		// A check naming a fault kind, throttling kind, probe or policy that
		// does not exist is an error, not a silent 0.
		{"misspelt fault kind in a check", echoScenario + "checks:\n  - faults.cancle.injected == 0\n",
			`11:5: check "faults.cancle.injected == 0": unknown fault kind "cancle" (did you mean "cancel"? known: cancel, disconnect, cancel_race, stall_read, malformed, reissue, bad_retry, same_id_retry, fast_poll, notify_flood, cancel_unknown)`},
		{"unknown throttling kind in a check", echoScenario + "checks:\n  - throttling.by_kind.http_492 == 0\n",
			`11:5: check "throttling.by_kind.http_492 == 0": unknown throttling kind "http_492" (did you mean "http_429"?`},
		{"unknown probe in a check", echoScenario + "checks:\n  - cancellation.by_probe.nope > 0\n",
			`11:5: check "cancellation.by_probe.nope > 0": unknown probe "nope" (known: builtin_inflight)`},
		{"misspelt probe in a check", strings.Replace(echoScenario, "orphans: {grace: 100ms}", "orphans: {grace: 100ms, probes: [{name: work, tool: {name: inflight}}]}", 1) +
			"checks:\n  - cancellation.by_probe.wrk == 0\n",
			`11:5: check "cancellation.by_probe.wrk == 0": unknown probe "wrk" (did you mean "work"? known: work, builtin_inflight)`},
		{"unknown policy in a check", echoScenario + "checks:\n  - timeouts.policies.nope.killed == 0\n",
			`11:5: check "timeouts.policies.nope.killed == 0": unknown timeout policy "nope" (known: fixed-60s, reset-no-cap, reset-with-cap)`},
		{"probe named like the built-in target's", strings.Replace(echoScenario, "orphans: {grace: 100ms}", "orphans: {grace: 100ms, probes: [{name: builtin_inflight, process: {}}]}", 1),
			`9:34: orphans.probes[0]: probe name "builtin_inflight" is taken by the built-in target's own probe; choose another name`},
		{"fail_on_violation not a bool", echoScenario + "fail_on_violation: 0\n",
			`10:20: fail_on_violation: want true or false, got "0"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := writeScenario(t, "bad.yaml", tt.src)
			var vOut, vErr, rOut, rErr bytes.Buffer
			vCode := run(t.Context(), []string{"validate", path}, &vOut, &vErr)
			rCode := run(t.Context(), []string{"run", "-q", path}, &rOut, &rErr)
			if vCode != 2 || rCode != 2 {
				t.Fatalf("exit codes: validate %d, run %d; want 2 and 2\nvalidate: %s\nrun: %s", vCode, rCode, vErr.String(), rErr.String())
			}
			validate := strings.TrimSpace(vErr.String())
			runLines := strings.Split(strings.TrimSpace(rErr.String()), "\n")
			for i, l := range runLines {
				runLines[i] = strings.TrimPrefix(l, "mcpchaos run: ")
			}
			if r := strings.Join(runLines, "\n"); r != validate {
				t.Errorf("validate and run disagree:\nvalidate: %s\nrun:      %s", validate, r)
			}
			if want := path + ":" + tt.want; !strings.HasPrefix(validate, want) || strings.Contains(validate, "\n") {
				t.Errorf("problem:\n got %s\nwant %s", validate, want)
			}
		})
	}
}
