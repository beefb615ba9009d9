package report

import (
	"fmt"
	"math"
	"testing"

	"github.com/mcpchaos/mcpchaos/results"
)

func TestAppendNormalised(t *testing.T) {
	tests := []struct{ name, msg, want string }{
		{"address and port", "dial tcp 127.0.0.1:41234: connect: connection refused",
			"dial tcp N.N.N.N:N: connect: connection refused"},
		{"HTTP status kept", "initialize: HTTP status 404 Not Found from http://127.0.0.1:8080/wrong",
			"initialize: HTTP status 404 Not Found from http://N.N.N.N:N/wrong"},
		{"error code kept", "rpc error -32603: internal error", "rpc error -32603: internal error"},
		{"ids and counts", "stopped at step 3 of 10 (request 1234)", "stopped at step N of N (request N)"},
		{"times", "no answer after 250ms (1.5s)", "no answer after Nms (N.Ns)"},
		{"hex id", "job 3f2a9b1c4d failed", "job <hex> failed"},
		{"uuid", "session 550e8400-e29b-41d4-a716-446655440000 expired", "session <uuid> expired"},
		{"digits in words", "utf8 over http2 v1", "utf8 over http2 v1"},
		{"a number like a status inside an address", "127.0.0.1:404", "N.N.N.N:N"},
		{"hyphenated range", "reserved range -32020..-32099", "reserved range -32020..-32099"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(appendNormalised(nil, tt.msg)); got != tt.want {
				t.Errorf("appendNormalised(%q) = %q, want %q", tt.msg, got, tt.want)
			}
		})
	}
}

func TestErrorSetIsBounded(t *testing.T) {
	var e errorSet
	for range 5 {
		e.add(&results.Record{Outcome: results.TransportError, Error: "dial 10.0.0.1:99: refused"})
	}
	for i := range errorKindsMax + 50 {
		// Words normalisation keeps apart: errorKindsMax+50 distinct messages.
		e.add(&results.Record{Outcome: results.ToolError, Message: fmt.Sprintf("tool x%dy failed", i)})
	}
	e.add(&results.Record{Outcome: results.Cancelled, Message: "cancelled by us"})
	if len(e.byMsg) > errorKindsMax {
		t.Errorf("the set holds %d messages, more than %d", len(e.byMsg), errorKindsMax)
	}
	s := e.summary()
	if s.Total != errorKindsMax+55 {
		t.Errorf("total = %d, want %d (cancelled calls are not errors)", s.Total, errorKindsMax+55)
	}
	if len(s.Top) != errorTop {
		t.Fatalf("top has %d messages, want %d", len(s.Top), errorTop)
	}
	if s.Top[0] != (ErrorCount{Message: "transport_error: dial N.N.N.N:N: refused", Count: 5}) {
		t.Errorf("top[0] = %+v", s.Top[0])
	}
	sum := s.Other
	for _, m := range s.Top {
		sum += m.Count
	}
	if sum != s.Total {
		t.Errorf("top + other = %d, want the total %d", sum, s.Total)
	}
}

func TestAddDoesNotAllocateForKnownToolsAndErrors(t *testing.T) {
	a := NewAggregator(testRules())
	ok := call(0, results.OK, resp(12))
	bad := call(0, results.TransportError, with(func(r *results.Record) { r.Error = "dial 10.0.0.1:99: refused" }))
	a.Add(ok)
	a.Add(bad)
	allocs := testing.AllocsPerRun(100, func() {
		a.errors.add(bad)
		a.addTool(ok)
	})
	if allocs != 0 {
		t.Errorf("counting a known error and tool allocated %v times per record", allocs)
	}
}

func TestToolsBreakdown(t *testing.T) {
	a := aggregate(
		call(0, results.OK, resp(10)),
		call(0, results.OK, resp(30)),
		call(0, results.Cancelled, cancelAt(5)),
		call(0, results.OK, resp(100), with(func(r *results.Record) { r.Tool = "echo" })),
	)
	s := a.Summary(testMeta("2026-07-28"))
	slow := s.Tools["slow_task"]
	if slow.Calls != 3 || slow.ByOutcome[results.OK] != 2 || slow.ByOutcome[results.Cancelled] != 1 {
		t.Errorf("slow_task = %+v", slow)
	}
	if math.Abs(slow.LatencyMs.P50-10) > 0.01 || math.Abs(slow.LatencyMs.P99-30) > 0.03 {
		t.Errorf("slow_task latency = %+v, want p50 10, p99 30", slow.LatencyMs)
	}
	if e := s.Tools["echo"]; e.Calls != 1 || e.LatencyMs.P99 != 100 {
		t.Errorf("echo = %+v", e)
	}
}

// TestFailedFollowsTheTable: the error set counts exactly the outcomes
// the table marks as failures, and an outcome it does not know.
func TestFailedFollowsTheTable(t *testing.T) {
	for _, o := range results.OutcomeTable {
		if failed(o.Name) != o.Failure {
			t.Errorf("failed(%q) = %v, the table says %v", o.Name, failed(o.Name), o.Failure)
		}
	}
	for _, o := range []string{results.OK, results.Cancelled, results.Disconnected, results.ClientLimit} {
		if failed(o) {
			t.Errorf("failed(%q): the error set must not count it", o)
		}
	}
	if !failed("something_new") {
		t.Error("an unknown outcome must count as failed")
	}
}
