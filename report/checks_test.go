package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/report/summary"
	"github.com/mcpchaos/mcpchaos/results"
)

// checkSummary is a small run: 100 calls answered in 1..100 ms, two of
// them cancelled with a late response, Retry-After 1.5 s, one cancel fault.
func checkSummary() *Summary {
	var recs []*results.Record
	for i := 1; i <= 100; i++ {
		recs = append(recs, call(time.Duration(i)*10*time.Millisecond, results.OK, resp(float64(i))))
	}
	recs = append(recs,
		call(0, results.Cancelled, cancelAt(5), fault("cancel", 40), with(func(r *results.Record) { r.LateResponses = 1 })),
		call(0, results.Throttled, resp(1), throttle("http_429", 1500)))
	a := aggregate(recs...)
	a.SetOrphans(Orphans{DrainMs: 1200})
	return a.Summary(testMeta("2026-07-28"))
}

func keyCheck(key, op string, v float64) Check {
	return Check{Raw: key + " " + op + " " + summary.FormatNum(v), Key: key, Op: op, Value: v}
}

func TestCheckOperators(t *testing.T) {
	// calls.ok is 100.
	tests := []struct {
		op    string
		value float64
		pass  bool
	}{
		{"<", 101, true}, {"<", 100, false},
		{"<=", 100, true}, {"<=", 99, false},
		{"==", 100, true}, {"==", 99, false},
		{"!=", 99, true}, {"!=", 100, false},
		{">=", 100, true}, {">=", 101, false},
		{">", 99, true}, {">", 100, false},
	}
	for _, tt := range tests {
		c := keyCheck("calls.ok", tt.op, tt.value)
		t.Run(c.Raw, func(t *testing.T) {
			s := checkSummary()
			s.Evaluate([]Check{c}, true)
			r := s.Checks[0]
			if r.Pass != tt.pass || s.Pass != tt.pass || r.Value != 100 {
				t.Errorf("pass %v (summary %v) value %v, want %v and 100", r.Pass, s.Pass, r.Value, tt.pass)
			}
		})
	}
}

func TestPercentileChecks(t *testing.T) {
	tests := []struct {
		name      string
		check     Check
		fromJSON  bool
		pass      bool
		value     float64 // ms, ± 0.2%
		reasonHas string
	}{
		{"p99 from the histogram", Check{Hist: "call", Percentile: 99, Op: "<=", Value: 99.5}, false, true, 99, ""},
		{"p95 from the histogram", Check{Hist: "call", Percentile: 95, Op: ">", Value: 96}, false, false, 95, ""},
		{"p100 is the maximum", Check{Hist: "call", Percentile: 100, Op: "==", Value: 100}, false, true, 100, ""},
		{"service histogram", Check{Hist: "service", Percentile: 50, Op: "<", Value: 60}, false, true, 50, ""},
		{"duration value", Check{Hist: "call", Percentile: 99, Op: "<", Value: 3000, Unit: "ms"}, false, true, 99, ""},
		{"empty histogram fails", Check{Hist: "first_progress", Percentile: 99, Op: "<", Value: 1e9}, false, false, 0, "no values"},
		{"p99 from JSON", Check{Hist: "call", Percentile: 99, Op: "<", Value: 100}, true, true, 99, ""},
		{"p99.9 from JSON", Check{Hist: "call", Percentile: 99.9, Op: "<=", Value: 100}, true, true, 100, ""},
		{"p95 from JSON cannot be found", Check{Hist: "call", Percentile: 95, Op: "<", Value: 1e9}, true, false, 0, "needs the histogram"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := checkSummary()
			if tt.fromJSON {
				var b bytes.Buffer
				if err := s.JSON(&b); err != nil {
					t.Fatal(err)
				}
				var err error
				if s, err = ReadSummary(&b); err != nil {
					t.Fatal(err)
				}
			}
			s.Evaluate([]Check{tt.check}, true)
			r := s.Checks[0]
			if r.Pass != tt.pass {
				t.Errorf("pass = %v, want %v (%+v)", r.Pass, tt.pass, r)
			}
			if d := r.Value - tt.value; d > tt.value*0.002 || d < -tt.value*0.002 {
				t.Errorf("value = %v, want %v", r.Value, tt.value)
			}
			if !strings.Contains(r.Reason, tt.reasonHas) || (tt.reasonHas == "") != (r.Reason == "") {
				t.Errorf("reason = %q, want one containing %q", r.Reason, tt.reasonHas)
			}
		})
	}
}

func TestDurationChecks(t *testing.T) {
	tests := []struct {
		name  string
		check Check
		pass  bool
		value float64
	}{
		// retry_after_s.max is 1.5 (seconds); the check value is in ms.
		{"seconds key, duration below", Check{Key: "throttling.retry_after_s.max", Op: "<", Value: 2000, Unit: "ms"}, true, 1.5},
		{"seconds key, duration above", Check{Key: "throttling.retry_after_s.max", Op: "<", Value: 1000, Unit: "ms"}, false, 1.5},
		{"seconds key, plain number is seconds", Check{Key: "throttling.retry_after_s.max", Op: "<", Value: 2}, true, 1.5},
		{"ms key with a duration", Check{Key: "cancellation.drain_ms", Op: "<", Value: 1500, Unit: "ms"}, true, 1200},
		{"ms key, duration equal", Check{Key: "cancellation.drain_ms", Op: "==", Value: 1200, Unit: "ms"}, true, 1200},
		{"latency key with a duration", Check{Key: "latency_ms.call.max", Op: "<=", Value: 100, Unit: "ms"}, true, 100},
		{"duration_s with a duration", Check{Key: "duration_s", Op: ">=", Value: 4000, Unit: "ms"}, true, 4},
		{"fault timing in ms", Check{Key: "faults.cancel.timing_error_ms.max", Op: "<", Value: 1, Unit: "ms"}, true, 0.04},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := checkSummary()
			s.Evaluate([]Check{tt.check}, true)
			r := s.Checks[0]
			if r.Pass != tt.pass || r.Value != tt.value || r.Reason != "" {
				t.Errorf("got %+v, want pass %v value %v", r, tt.pass, tt.value)
			}
		})
	}
}

func TestPlaceholderKeys(t *testing.T) {
	tests := []struct {
		key   string
		value float64
	}{
		{"faults.cancel.injected", 1},
		{"faults.disconnect.injected", 0},
		{"faults.disconnect.timing_error_ms.p99", 0},
		{"throttling.by_kind.http_429", 1},
		{"throttling.by_kind.http_503", 0},
		{"cancellation.by_probe.mcp_inflight_calls", 0},
		{"timeouts.policies.reset_only.waited_forever", 0},
		{"timeouts.policies.fixed-60s.killed", 0},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			c := keyCheck(tt.key, "==", tt.value)
			if err := ValidateCheck(c); err != nil {
				t.Fatalf("ValidateCheck: %v", err)
			}
			s := checkSummary()
			s.Evaluate([]Check{c}, true)
			if r := s.Checks[0]; !r.Pass || r.Value != tt.value {
				t.Errorf("got %+v, want value %v", r, tt.value)
			}
		})
	}
}

func TestValidateCheckErrors(t *testing.T) {
	tests := []struct {
		name  string
		check Check
		want  []string
	}{
		{"unknown key", Check{Raw: "cancellation.orphans == 0", Key: "cancellation.orphans", Op: "==", Line: 12, Column: 5},
			[]string{"line 12, column 5", `"cancellation.orphans == 0"`, `unknown key "cancellation.orphans"`, `did you mean "cancellation.orphaned"`}},
		{"unknown fixed key under a map's parent", Check{Raw: "throttling.retry_after_s.p99 < 1", Key: "throttling.retry_after_s.p99", Op: "<", Line: 3},
			[]string{"line 3:", "unknown key"}},
		{"a section is not a number", Check{Raw: "calls > 0", Key: "calls", Op: ">", Line: 4}, []string{"line 4", "unknown key \"calls\""}},
		{"a text key is not a number", Check{Raw: "era == 0", Key: "era", Op: "==", Line: 4}, []string{"unknown key \"era\""}},
		{"unknown histogram", Check{Raw: "p99(total) < 1s", Hist: "total", Percentile: 99, Op: "<", Value: 1000, Unit: "ms", Line: 7},
			[]string{"line 7", `unknown histogram "total"`}},
		{"percentile out of range", Check{Raw: "p0(call) < 1", Hist: "call", Percentile: 0, Op: "<", Line: 8}, []string{"percentile 0"}},
		{"bad operator", Check{Raw: "calls.ok =< 1", Key: "calls.ok", Op: "=<", Line: 9}, []string{`unknown operator "=<"`}},
		{"duration against a count", Check{Raw: "calls.ok < 3s", Key: "calls.ok", Op: "<", Value: 3000, Unit: "ms", Line: 10},
			[]string{"line 10", `"calls.ok", which is not a time`}},
		{"duration against a count of a histogram", Check{Raw: "latency_ms.call.count < 3s", Key: "latency_ms.call.count", Op: "<", Value: 3000, Unit: "ms"},
			[]string{"not a time"}},
		{"neither key nor histogram", Check{Raw: "< 3", Op: "<", Value: 3}, []string{"neither a key nor a histogram"}},
		{"both key and histogram", Check{Raw: "x", Key: "calls.ok", Hist: "call", Percentile: 99, Op: "<"}, []string{"both"}},
		{"unknown unit", Check{Raw: "calls.ok < 3", Key: "calls.ok", Op: "<", Unit: "s"}, []string{`unknown unit "s"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateCheck(tt.check)
			if err == nil {
				t.Fatal("ValidateCheck accepted the check")
			}
			var ce *CheckError
			if !errors.As(err, &ce) || ce.Line != tt.check.Line {
				t.Errorf("error %v is not a *CheckError with line %d", err, tt.check.Line)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestValidateCheckAcceptsKnownChecks(t *testing.T) {
	for _, c := range append(goldenChecks(),
		keyCheck("progress.violations.total", "==", 0),
		keyCheck("protocol.connection.unknown_responses", "==", 0),
		Check{Raw: "p99.9(timeout_error) < 5ms", Hist: "timeout_error", Percentile: 99.9, Op: "<", Value: 5, Unit: "ms"},
	) {
		if err := ValidateCheck(c); err != nil {
			t.Errorf("ValidateCheck(%q): %v", c.Raw, err)
		}
	}
}

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name   string
		checks []Check
		pass   bool
	}{
		{"no checks pass", nil, true},
		{"all pass", []Check{keyCheck("calls.ok", "==", 100), keyCheck("cancellation.late_responses", "==", 1)}, true},
		{"one fails", []Check{keyCheck("calls.ok", "==", 100), keyCheck("cancellation.late_responses", "==", 0)}, false},
		{"unknown key fails with a reason", []Check{keyCheck("calls.okay", "==", 0)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := checkSummary()
			s.Evaluate(tt.checks, true)
			if s.Pass != tt.pass || len(s.Checks) != len(tt.checks) {
				t.Errorf("pass %v with %d results, want %v with %d", s.Pass, len(s.Checks), tt.pass, len(tt.checks))
			}
		})
	}
	s := checkSummary()
	s.Evaluate([]Check{keyCheck("calls.okay", "==", 0)}, true)
	if r := s.Checks[0]; r.Pass || !strings.Contains(r.Reason, `unknown key "calls.okay"`) {
		t.Errorf("unknown key result = %+v, want a failure naming the key", r)
	}
	// Evaluating again replaces the results.
	s.Evaluate([]Check{keyCheck("calls.ok", "==", 100)}, true)
	if !s.Pass || len(s.Checks) != 1 {
		t.Errorf("re-evaluation kept old results: %+v", s.Checks)
	}
}

func TestCheckString(t *testing.T) {
	tests := []struct {
		c    Check
		want string
	}{
		{Check{Raw: "p99(call) < 3s"}, "p99(call) < 3s"},
		{Check{Hist: "call", Percentile: 99.9, Op: "<", Value: 3000, Unit: "ms"}, "p99.9(call) < 3000ms"},
		{Check{Key: "calls.ok", Op: ">=", Value: 10}, "calls.ok >= 10"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

// TestScenarioChecks runs checks parsed by package scenarios through
// ScenarioChecks and Evaluate: the resolved checks keep their position,
// and a key the summary does not have is an error at FILE:LINE:COLUMN.
func TestScenarioChecks(t *testing.T) {
	sc := &scenarios.Scenario{File: "x.yaml"}
	for i, raw := range []string{"p99(call) < 3s", "cancellation.orphans == 0", "calls.ok >= 100"} {
		c, err := scenarios.ParseCheck(raw)
		if err != nil {
			t.Fatal(err)
		}
		c.Pos = scenarios.Pos{Line: 10 + i, Column: 5}
		sc.Checks = append(sc.Checks, c)
	}
	checks, errs := ScenarioChecks(sc, Names{})
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), `x.yaml:11:5: check "cancellation.orphans == 0": unknown key "cancellation.orphans"`) {
		t.Fatalf("errors = %v, want one unknown key at x.yaml:11:5", errs)
	}
	want := []Check{
		{Raw: "p99(call) < 3s", Hist: "call", Percentile: 99, Op: "<", Value: 3000, Unit: "ms", Line: 10, Column: 5},
		{Raw: "calls.ok >= 100", Key: "calls.ok", Op: ">=", Value: 100, Line: 12, Column: 5},
	}
	if len(checks) != len(want) || checks[0] != want[0] || checks[1] != want[1] {
		t.Fatalf("checks = %+v\nwant %+v", checks, want)
	}
	s := checkSummary() // p99(call) is 99 ms, calls.ok 100
	s.Evaluate(checks, true)
	if !s.Pass || s.Checks[0].Line != 10 || s.Checks[1].Line != 12 {
		t.Errorf("evaluated %+v, pass %v; want both to pass, on lines 10 and 12", s.Checks, s.Pass)
	}
}
