package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLimitsBadInput: bad flags and files exit 2 with a message that
// names what is wrong, before anything is started.
func TestLimitsBadInput(t *testing.T) {
	good := writeScenario(t, "ok.yaml", "name: x\ntarget: {builtin: {}}\nload: {rate: 1/1s, duration: 1s}\ncalls: [{tool: echo, arguments: {text: hi}}]\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no scenario", []string{"limits"}, "want exactly one scenario file"},
		{"a zero max rate", []string{"limits", good, "--max-rate", "0/1s"}, `invalid rate "0/1s"`},
		{"a malformed max rate", []string{"limits", good, "--max-rate", "fast"}, `"fast"`},
		{"a malformed budget", []string{"limits", good, "--budget", "soon"}, `"soon"`},
		{"a zero budget", []string{"limits", good, "--budget", "0s"}, "must both be above zero"},
		{"a missing file", []string{"limits", filepath.Join(t.TempDir(), "none.yaml")}, "none.yaml"},
		{"an unknown key in a check", []string{"limits", writeScenario(t, "bad.yaml",
			"name: x\ntarget: {builtin: {}}\nload: {rate: 1/1s, duration: 1s}\ncalls: [{tool: echo, arguments: {text: hi}}]\nchecks: [limits.rat >= 1]\n")}, "bad.yaml:5:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, t.Context(), tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and a message with %q", code, stderr, tt.want)
			}
		})
	}
}

// TestLimitsNoLimiter: against a target with no limit, a short search
// finds nothing throttled; the JSON summary carries every limits key
// (null where there is no answer), the text opens with the limit card,
// and a check on limits.rate fails the command (exit 1).
func TestLimitsNoLimiter(t *testing.T) {
	dir := t.TempDir()
	path := writeScenario(t, "none.yaml", `name: no-limit
seed: 3
target: {builtin: {transport: http}}
load: {rate: 1/1s, duration: 1s}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: echo, arguments: {text: hi}}
  - {tool: slow_task, arguments: {steps: 1, step_ms: 1}}
orphans: {grace: 100ms}
checks: [limits.rate >= 25]
`)
	sum, out := filepath.Join(dir, "s.json"), filepath.Join(dir, "calls.jsonl")
	code, stdout, stderr := runCLI(t, t.Context(), "limits", path, "-q", "--budget", "3s", "--max-rate", "20/1s", "--summary-json", sum, "-o", out)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the check on limits.rate fails); stderr:\n%s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "Limit card") || !strings.Contains(stdout, "window none") {
		t.Errorf("the text does not open with the limit card saying window none:\n%s", stdout)
	}
	m := readJSON(t, sum)
	for key, want := range map[string]any{"limits.signal": "none", "limits.window": "none", "limits.rate": nil, "limits.burst": nil,
		"limits.window_s": nil, "limits.concurrency": nil, "limits.capacity": nil, "limits.retry_after.verdict": "unknown",
		"limits.retry_after.advertised_s": nil, "limits.retry_after.accepted_after_s": nil, "limits.tools.echo": "unlimited",
		"limits.tools.slow_task": "unlimited", "limits.overload.ok_rate": nil, "limits.overload.holds": nil,
		"limits.lockout.verdict": "unknown", "limits.counts.tools_list": "unknown", "limits.counts.initialize": "unknown", "limits.counts.refused": "unknown"} {
		got, ok := lookup(m, key)
		if !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", key, got, ok, want)
		}
	}
	if n := num(t, m, "limits.search_s"); n < 0 || n > 3.5 {
		t.Errorf("limits.search_s = %v, want within the 3 s budget", n)
	}
	if v, _ := lookup(m, "limits.ended"); v != "done" && v != "budget" {
		t.Errorf("limits.ended = %v, want done or budget", v)
	}
	if v, _ := lookup(m, "pass"); v != false {
		t.Errorf("pass = %v, want false", v)
	}
	// The results file renders again: the card from its trailer, the
	// same check failing.
	rcode, rout, rerr := runCLI(t, t.Context(), "report", out)
	if rcode != 1 || !strings.HasPrefix(rout, "Limit card") || !strings.Contains(rout, "window none") {
		t.Errorf("report of the search's calls: exit %d, want 1 with the limit card; stdout:\n%s\nstderr:\n%s", rcode, rout, rerr)
	}
}

// TestLimitsInterrupted: an interrupt stops the search; what was found
// so far is still printed and written, and the exit status is 130.
func TestLimitsInterrupted(t *testing.T) {
	path := writeScenario(t, "tb.yaml", `name: interrupted
target: {builtin: {transport: http, rate_limit: 5/1s}}
load: {rate: 1/1s, duration: 1s}
timeouts: {idle: 5s, max: 10s}
calls: [{tool: echo, arguments: {text: hi}}]
orphans: {grace: 100ms}
`)
	sum := filepath.Join(t.TempDir(), "s.json")
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(2*time.Second, cancel)
	code, stdout, stderr := runCLI(t, ctx, "limits", path, "-q", "--max-rate", "20/1s", "--summary-json", sum)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr)
	}
	if !strings.Contains(stdout, "Limit card") || !strings.Contains(stdout, "interrupted") {
		t.Errorf("the text has no limit card saying interrupted:\n%s", stdout)
	}
	m := readJSON(t, sum)
	if v, _ := lookup(m, "limits.ended"); v != "interrupted" {
		t.Errorf("limits.ended = %v, want interrupted", v)
	}
	if v, _ := lookup(m, "limits.signal"); v != "http_429" {
		t.Errorf("limits.signal = %v, want http_429 (the burst of 20 against 5/1s was throttled before the interrupt)", v)
	}
}

// TestLimitsHeadersClaim: a target whose refusals carry rate-limit
// headers that claim twice its limit: the claim is read (quota, window,
// header), judged too_high against the rate measured, and on the card.
func TestLimitsHeadersClaim(t *testing.T) {
	path := writeScenario(t, "hdr.yaml", `name: headers
seed: 1
target: {builtin: {transport: http, rate_limit: 20/1s, rate_limit_kind: token_bucket, rate_limit_headers: wrong}}
load: {rate: 1/1s, duration: 1s}
timeouts: {idle: 5s, max: 10s}
calls: [{tool: echo, arguments: {text: hi}}]
orphans: {grace: 100ms}
`)
	sum := filepath.Join(t.TempDir(), "s.json")
	code, stdout, stderr := runCLI(t, t.Context(), "limits", path, "-q", "--budget", "20s", "--max-rate", "100/1s", "--summary-json", sum)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	m := readJSON(t, sum)
	for key, want := range map[string]any{"limits.headers.limit": 40.0, "limits.headers.window_s": 1.0, "limits.headers.claimed_rate": 40.0,
		"limits.headers.from": "RateLimit-Limit", "limits.headers.verdict": "too_high"} {
		if got, _ := lookup(m, key); got != want {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
	if !strings.Contains(stdout, "headers too_high:") {
		t.Errorf("the card has no headers line:\n%s", stdout)
	}
}
