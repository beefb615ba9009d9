package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Placeholders for the map keys of a Summary: a check may name any kind or
// name there, and one that did not occur has the value 0.
const (
	placeholderKind = "<kind>"
	placeholderName = "<name>"
	// placeholderTool is a tool of the scenario's calls.
	placeholderTool = "<tool>"
	// placeholderOutcome is one of results.Outcomes.
	placeholderOutcome = "<outcome>"
)

// templateSummary is a Summary with one placeholder entry in every map, so
// its JSON has every numeric leaf a check may use.
func templateSummary() *Summary {
	s := &Summary{Faults: map[string]FaultStats{placeholderKind: {Server: map[string]int{placeholderName: 0}}}}
	s.Throttling.ByKind = map[string]int{placeholderKind: 0}
	s.Cancellation.ByProbe = map[string]float64{placeholderName: 0}
	s.Cancellation.Log = &LogOrphans{}
	s.Cancellation.ProcessCPU = &ProcessCPU{}
	s.Cancellation.Client = &ClientStall{}
	s.Cancellation.CutPings = &CutPings{}
	s.Cancellation.WorkFences = &WorkFences{}
	s.Cancellation.Contention = &Contention{}
	s.Cancellation.ServerProcesses = &ServerProcesses{}
	s.Timeouts.Policies = map[string]PolicyCounts{placeholderName: {}}
	s.Tools = map[string]ToolStats{placeholderTool: {ByOutcome: map[string]int{placeholderOutcome: 0}}}
	s.Gateway = &GatewaySummary{EraSeen: map[string]int{placeholderName: 0}}
	s.Limits = limitsTemplate()
	return s
}

// KnownKeys returns every dotted numeric key of the summary JSON a check
// may use, in document order. Keys under a map carry a placeholder segment,
// <kind>, <name>, <tool> or <outcome>, that stands for any name ("faults.<kind>.injected"
// admits "faults.cancel.injected"). The list is derived from the Summary
// type itself, so it cannot drift from the JSON:
//
//	seed, duration_s
//	calls.{total, <each outcome>, reissued, retried}
//	rate.{offered, achieved, ok}
//	errors.{total, other}
//	latency_ms.<histogram>.{p50, p90, p99, p999, max, mean, count}
//	tools.<tool>.calls, tools.<tool>.by_outcome.<outcome>, tools.<tool>.latency_ms.{p50, p99}
//	progress.{notifications, calls, max_rate_hz, floods, stalls, incomplete, grace_ms, flood_hz, stall_ms}
//	progress.violations.{total, non_monotonic, after_response, after_cancel, unknown_token, wrong_stream}
//	protocol.violations.{total, server_request, not_jsonrpc, ..., duplicate_response}
//	protocol.connection.{not_jsonrpc, oversize, unknown_responses, unknown_tokens, stale, stale_answers, server_requests, server_cancels, other_stream, get_streams}
//	cancellation.{cancels, late_responses, late_progress, leftover_calls, leftover_max_ms, fenced_calls, late_queued, late_queued_prompt, late_drained, cancel_answers, orphaned, leftover_cpu_s,
//	              drain_ms, leaked_call_seconds, quiet_window_ms, tasks_running_on, counting_probes}, cancellation.by_probe.<name>,
//	              cancellation.log.{lines, matched, orphaned, max_after_cancel_ms, unseen}
//	              cancellation.windows.{count, cancelled, skipped_ticks, leftover_cpu_s, noise_cpu_s, above, tasks_running_on,
//	              orphaned_max, measured_ms},
//	              cancellation.process_cpu.{pid, idle_rate, idle_noise, load_rate, per_call_s, threshold_s},
//	              cancellation.cut_pings.{...}, cancellation.work_fences.{unanswered, lag_ms.{p50, ...}}, cancellation.contention.{...},
//	              cancellation.server_processes.{signalled, killed, leftover}
//	throttling.{total, onset_rate, best_ok_rate, retries, retries_not_made}, throttling.by_kind.<kind>,
//	              throttling.retry_after_s.{p50, max}
//	timeouts.{idle, cap, cap_with_progress}, timeouts.policies.<name>.{killed, waited_forever}
//	mrtr.{input_required, load_shed, rounds, calls, elicitation, sampling, roots},
//	              mrtr.think_ms.{p50, ...}, mrtr.server_ms.{p50, ...}
//	tasks.{created, completed, failed, cancelled, polls, poll_throttled, updates, cancel_sent, leftover, listened, pushed},
//	              tasks.latency_ms.{p50, ...}, tasks.ran_on_ms.{p50, ...}
//	faults.<kind>.{injected, skipped, unexpected, refused}, faults.<kind>.timing_error_ms.{p50, p99, max},
//	              faults.<kind>.server.<name>
//	gateway.{calls, executions, not_seen, duplicate_executions, misdirected_cancels, lost_cancels,
//	              crossed_responses, progress_held, progress_lost, retry_after_lost, unrecorded, unended, truth_unread,
//	              echoes_after_truth, progress_after_lost_cancel, progress_after_cancel_unknown},
//	              gateway.stops.{cancelled, disconnected}.{stopped, ran_on, unknown}, gateway.lag_ms.{p50, p99, max, count},
//	              gateway.era_seen.<name>
//	limits.{rate, burst, window_s, concurrency, capacity, searched_up_to, search_s},
//	              limits.retry_after.{advertised_s, accepted_after_s}, limits.overload.{ok_rate, refusal_ms}
func KnownKeys() []string {
	leaves, err := flatten(templateSummary())
	if err != nil {
		panic("report: the summary template does not encode: " + err.Error())
	}
	keys := make([]string, len(leaves))
	for i, l := range leaves {
		keys[i] = l.key
	}
	return keys
}

// leaf is one numeric leaf of a JSON document.
type leaf struct {
	key   string
	value float64
}

// flatten returns the numeric leaves of v's JSON in document order, with
// object keys joined by dots. Arrays, strings, booleans and nulls are left
// out.
func flatten(v any) ([]leaf, error) {
	leaves, _, err := flattenObjects(v, nil)
	return leaves, err
}

// flattenObjects is flatten that also notes, in objects (when not nil),
// the dotted key of every JSON object v has ("" for v itself) as true,
// and of every null as false.
func flattenObjects(v any, objects map[string]bool) ([]leaf, map[string]bool, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, objects, fmt.Errorf("encode summary: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out []leaf
	if err := walk(dec, "", &out, objects); err != nil {
		return nil, objects, fmt.Errorf("flatten summary: %w", err)
	}
	return out, objects, nil
}

// walk reads one JSON value from dec and appends its numeric leaves, and
// notes the objects and nulls outside arrays in objects (when not nil).
func walk(dec *json.Decoder, prefix string, out *[]leaf, objects map[string]bool) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case nil:
		if objects != nil {
			objects[prefix] = false // a null: no value found
		}
	case json.Number:
		f, err := t.Float64()
		if err != nil {
			return fmt.Errorf("number %q at %q: %w", t, prefix, err)
		}
		*out = append(*out, leaf{prefix, f})
	case json.Delim:
		if t == '{' && objects != nil {
			objects[prefix] = true
		}
		var discard []leaf
		for dec.More() {
			if t == '[' {
				if err := walk(dec, "", &discard, nil); err != nil {
					return err
				}
				continue
			}
			k, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := k.(string)
			if prefix != "" {
				key = prefix + "." + key
			}
			if err := walk(dec, key, out, objects); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return err
		}
	}
	return nil
}

// knownPattern returns the known key that key stands for: itself, or a key
// with placeholders whose other segments match. ok is false for a key no
// check may use.
func knownPattern(key string, known []string) (pattern string, ok bool) {
	for _, k := range known {
		if k == key {
			return k, true
		}
	}
	segs := strings.Split(key, ".")
	for _, k := range known {
		if strings.Contains(k, "<") && matchSegments(strings.Split(k, "."), segs) {
			return k, true
		}
	}
	return "", false
}

func matchSegments(pattern, segs []string) bool {
	if len(pattern) != len(segs) {
		return false
	}
	for i, p := range pattern {
		if !strings.HasPrefix(p, "<") && p != segs[i] {
			return false
		}
	}
	return true
}

// Units a key's value may be in.
const (
	unitNone = ""
	unitMs   = "ms"
	unitS    = "s"
)

// keyUnit returns the time unit of a known key's value: the innermost
// segment that names one ("latency_ms", "retry_after_s", "drain_ms",
// "leaked_call_seconds") decides. Placeholder segments never do, and a
// histogram's count is a number of values.
func keyUnit(pattern string) string {
	segs := strings.Split(pattern, ".")
	if segs[len(segs)-1] == "count" {
		return unitNone
	}
	for i := len(segs) - 1; i >= 0; i-- {
		switch seg := segs[i]; {
		case strings.HasSuffix(seg, "_ms"):
			return unitMs
		case strings.HasSuffix(seg, "_s"), strings.HasSuffix(seg, "_seconds"):
			return unitS
		}
	}
	return unitNone
}
