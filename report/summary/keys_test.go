package summary

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestKnownKeysHasTheDocumentedKeys(t *testing.T) {
	keys := KnownKeys()
	for _, k := range []string{
		"seed", "duration_s",
		"calls.total", "calls.ok", "calls.tool_error", "calls.rpc_error", "calls.throttled", "calls.http_error",
		"calls.timeout_idle", "calls.timeout_cap", "calls.cancelled", "calls.disconnected",
		"calls.transport_error", "calls.protocol_error", "calls.dropped", "calls.reissued", "calls.retried",
		"rate.offered", "rate.achieved", "rate.ok",
		"latency_ms.call.p50", "latency_ms.service.p90", "latency_ms.first_progress.p99",
		"latency_ms.progress_gap.p999", "latency_ms.timeout_error.max", "latency_ms.call.mean", "latency_ms.call.count",
		"progress.notifications", "progress.calls", "progress.max_rate_hz", "progress.floods", "progress.stalls",
		"progress.incomplete", "progress.grace_ms", "progress.flood_hz", "progress.stall_ms",
		"progress.violations.total", "progress.violations.non_monotonic", "progress.violations.after_response",
		"progress.violations.after_cancel", "progress.violations.unknown_token", "progress.violations.wrong_stream",
		"protocol.violations.total", "protocol.violations.server_request", "protocol.violations.not_jsonrpc",
		"protocol.violations.content_type", "protocol.violations.oversize", "protocol.violations.stream_not_closed",
		"protocol.violations.bad_progress", "protocol.violations.server_cancel",
		"protocol.violations.missing_result_type", "protocol.violations.unknown_result_type",
		"protocol.violations.reserved_code", "protocol.violations.duplicate_response",
		"protocol.connection.not_jsonrpc", "protocol.connection.unknown_tokens", "protocol.connection.server_cancels",
		"cancellation.cancels", "cancellation.late_responses", "cancellation.late_progress",
		"cancellation.leftover_calls", "cancellation.orphaned", "cancellation.leftover_cpu_s", "cancellation.drain_ms",
		"cancellation.leaked_call_seconds", "cancellation.quiet_window_ms", "cancellation.by_probe.<name>",
		"throttling.total", "throttling.by_kind.<kind>", "throttling.retry_after_s.p50", "throttling.retry_after_s.max",
		"throttling.onset_rate", "throttling.best_ok_rate", "throttling.retries",
		"timeouts.idle", "timeouts.cap", "timeouts.cap_with_progress",
		"timeouts.policies.<name>.killed", "timeouts.policies.<name>.waited_forever",
		"faults.<kind>.injected", "faults.<kind>.timing_error_ms.p50", "faults.<kind>.timing_error_ms.p99",
		"faults.<kind>.timing_error_ms.max",
		"errors.total", "errors.other", "tools.<tool>.calls", "tools.<tool>.by_outcome.<outcome>",
		"tools.<tool>.latency_ms.p50", "tools.<tool>.latency_ms.p99",
	} {
		if !slices.Contains(keys, k) {
			t.Errorf("KnownKeys lacks %q", k)
		}
	}
	for _, k := range []string{"scenario", "era", "started", "interrupted", "pass", "checks", "verdicts",
		"cancellation.probe_errors", "faults", "throttling.by_kind"} {
		if slices.Contains(keys, k) {
			t.Errorf("KnownKeys has %q, which is not a number", k)
		}
	}
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			t.Errorf("KnownKeys lists %q twice", k)
		}
		seen[k] = true
	}
}

func TestKeyUnit(t *testing.T) {
	tests := []struct{ key, want string }{
		{"latency_ms.call.p99", unitMs},
		{"latency_ms.call.count", unitNone},
		{"faults.<kind>.timing_error_ms.max", unitMs},
		{"throttling.retry_after_s.max", unitS},
		{"duration_s", unitS},
		{"cancellation.leftover_cpu_s", unitS},
		{"cancellation.leaked_call_seconds", unitS},
		{"cancellation.drain_ms", unitMs},
		{"progress.flood_hz", unitNone},
		{"calls.timeout_cap", unitNone},
		{"cancellation.by_probe.<name>", unitNone},
		{"tools.<tool>.latency_ms.p99", unitMs},
		{"tools.<tool>.by_outcome.<outcome>", unitNone},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if got := keyUnit(tt.key); got != tt.want {
				t.Errorf("keyUnit(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}

// summaryDoc is the summary reference, relative to this package.
const summaryDoc = "../../docs/summary.md"

// docKeys reads the first column of every "| key | meaning |" table in
// the summary reference, summaryDoc (between the summary-keys markers).
func docKeys(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(summaryDoc)
	if err != nil {
		t.Fatalf("open the summary reference: %v", err)
	}
	defer f.Close()
	var keys []string
	inKeyTable, inSection := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "<!-- summary-keys -->":
			inSection = true
		case line == "<!-- /summary-keys -->":
			inSection = false
		case !inSection:
		case strings.HasPrefix(line, "| key |"):
			inKeyTable = true
		case !strings.HasPrefix(line, "|"):
			inKeyTable = false
		case inKeyTable && strings.HasPrefix(line, "| `"):
			cell := strings.TrimPrefix(line, "| `")
			keys = append(keys, cell[:strings.Index(cell, "`")])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(keys) == 0 {
		t.Fatalf("%s has no key tables between the summary-keys markers", summaryDoc)
	}
	return keys
}

// docForm writes a latency key the way the reference does, with the
// histogram as a placeholder.
func docForm(key string) string {
	segs := strings.Split(key, ".")
	if segs[0] == "latency_ms" && len(segs) == 3 {
		segs[1] = "<histogram>"
	}
	if (segs[0] == "mrtr" || segs[0] == "tasks") && len(segs) == 3 {
		segs[2] = "<stat>" // think_ms, server_ms and latency_ms, documented once each
	}
	if len(segs) == 4 && segs[1] == "work_fences" && segs[2] == "lag_ms" {
		segs[3] = "<stat>"
	}
	return strings.Join(segs, ".")
}

func TestSummaryReferenceMatchesKnownKeys(t *testing.T) {
	documented := docKeys(t)
	for _, k := range KnownKeys() {
		if !slices.Contains(documented, docForm(k)) {
			t.Errorf("%s does not document %q", summaryDoc, docForm(k))
		}
	}
	// Keys a check cannot use, documented for the JSON reader.
	textual := []string{"scenario", "era", "transport", "http_version", "target", "server", "started", "interrupted",
		"cancellation.probe_errors", "cancellation.drained", "cancellation.writer_ordered", "cancellation.log.probe", "cancellation.log.orphaned_ids", "cancellation.windows.auto",
		"cancellation.cut_tools", "cancellation.process_cpu.tools",
		"errors.top", "checks", "pass", "fail_on_violation", "verdicts", "gateway.truth", "gateway.errors",
		"limits.signal", "limits.hints", "limits.window", "limits.confidence", "limits.retry_after.verdict", "limits.tools",
		"limits.overload.holds", "limits.capacity_bound", "limits.ended", "limits.evidence", "limits.headers.verdict", "limits.headers.from", "limits.budget",
		"limits.overload.refusal_cost", "limits.overload.refusal_work", "limits.lockout.verdict", "limits.counts.tools_list", "limits.counts.initialize", "limits.counts.refused", "limits.identities",
		"client_limits.hit", "client_limits.cpu", "client_limits.advice", "client_limits.example"}
	for _, d := range documented {
		if slices.Contains(textual, d) {
			continue
		}
		d = strings.Replace(strings.Replace(d, "<histogram>", "call", 1), "<stat>", "p50", 1)
		if _, ok := knownPattern(d, KnownKeys()); !ok {
			t.Errorf("%s documents %q, which is not in the summary", summaryDoc, d)
		}
	}
}
