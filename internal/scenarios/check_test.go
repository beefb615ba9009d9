package scenarios

import "testing"

func TestParseCheck(t *testing.T) {
	tests := []struct {
		in   string
		want Check
		err  string
	}{
		{"cancellation.orphaned == 0", Check{Expr: "cancellation.orphaned", Key: "cancellation.orphaned", Op: "==", Value: 0}, ""},
		{"ok==5", Check{Expr: "ok", Key: "ok", Op: "==", Value: 5}, ""},
		{"outcomes.timeout_idle <= 2.5", Check{Expr: "outcomes.timeout_idle", Key: "outcomes.timeout_idle", Op: "<=", Value: 2.5}, ""},
		{"a.b_2.c3 != -1", Check{Expr: "a.b_2.c3", Key: "a.b_2.c3", Op: "!=", Value: -1}, ""},
		{"x >= 1e3", Check{Expr: "x", Key: "x", Op: ">=", Value: 1000}, ""},
		{"x > 0", Check{Expr: "x", Key: "x", Op: ">", Value: 0}, ""},
		{"timeouts.enforcement_error_max < 100ms", Check{Expr: "timeouts.enforcement_error_max", Key: "timeouts.enforcement_error_max", Op: "<", Value: 100, Unit: "ms"}, ""},
		{"p99(call) < 3s", Check{Expr: "p99(call)", Func: "p", Percentile: 99, Hist: "call", Op: "<", Value: 3000, Unit: "ms"}, ""},
		{"p50( service ) < 1.5s", Check{Expr: "p50(service)", Func: "p", Percentile: 50, Hist: "service", Op: "<", Value: 1500, Unit: "ms"}, ""},
		{"p90(first_progress) <= 250ms", Check{Expr: "p90(first_progress)", Func: "p", Percentile: 90, Hist: "first_progress", Op: "<=", Value: 250, Unit: "ms"}, ""},
		{"p999(progress_gap) < 2s", Check{Expr: "p999(progress_gap)", Func: "p", Percentile: 99.9, Hist: "progress_gap", Op: "<", Value: 2000, Unit: "ms"}, ""},
		{"p99.9(timeout_error) < 50", Check{Expr: "p99.9(timeout_error)", Func: "p", Percentile: 99.9, Hist: "timeout_error", Op: "<", Value: 50}, ""},
		{"p9999(call) < 1m", Check{Expr: "p9999(call)", Func: "p", Percentile: 99.99, Hist: "call", Op: "<", Value: 60000, Unit: "ms"}, ""},
		{"p100(call) < 1h", Check{Expr: "p100(call)", Func: "p", Percentile: 100, Hist: "call", Op: "<", Value: 3600000, Unit: "ms"}, ""},

		{"cancellation.orphaned", Check{}, `invalid check "cancellation.orphaned": want EXPR OP VALUE with OP one of <= >= == != < >`},
		{"a = 1", Check{}, `invalid check "a = 1": unknown operator at "= 1" (want one of <= >= == != < >)`},
		{"a ! 1", Check{}, `invalid check "a ! 1": unknown operator at "! 1" (want one of <= >= == != < >)`},
		{"== 1", Check{}, `invalid check "== 1": missing the expression before ==`},
		{"a ==", Check{}, `invalid check "a ==": missing the value after ==`},
		{"A.b == 1", Check{}, `invalid check "A.b == 1": "A.b" is not a dotted key (lower-case words joined by dots) or pNN(histogram)`},
		{"a..b == 1", Check{}, `invalid check "a..b == 1": "a..b" is not a dotted key (lower-case words joined by dots) or pNN(histogram)`},
		{"a.b. == 1", Check{}, `invalid check "a.b. == 1": "a.b." is not a dotted key (lower-case words joined by dots) or pNN(histogram)`},
		{"timeouts.policies.fixed-60s.killed == 0", Check{Expr: "timeouts.policies.fixed-60s.killed", Key: "timeouts.policies.fixed-60s.killed", Op: "==", Value: 0}, ""},
		{"a - b == 1", Check{}, `invalid check "a - b == 1": "a - b" is not a dotted key (lower-case words joined by dots) or pNN(histogram)`},
		{"max(call) < 1s", Check{}, `invalid check "max(call) < 1s": unknown function "max" (want a percentile such as p50, p99, p999 or p99.9)`},
		{"p(call) < 1s", Check{}, `invalid check "p(call) < 1s": unknown function "p" (want a percentile such as p50, p99, p999 or p99.9)`},
		{"p0(call) < 1s", Check{}, `invalid check "p0(call) < 1s": percentile "p0" is outside (0, 100]`},
		{"p1.2.3(call) < 1s", Check{}, `invalid check "p1.2.3(call) < 1s": unknown function "p1.2.3" (want a percentile such as p50, p99, p999 or p99.9)`},
		{"p99(call < 1s", Check{}, `invalid check "p99(call < 1s": "p99(call": missing closing parenthesis`},
		{"p99(ok) < 1s", Check{}, `invalid check "p99(ok) < 1s": unknown histogram "ok" (known: call, service, first_progress, progress_gap, timeout_error)`},
		{"p99() < 1s", Check{}, `invalid check "p99() < 1s": unknown histogram "" (known: call, service, first_progress, progress_gap, timeout_error)`},
		{"a < 3 s", Check{}, `invalid check "a < 3 s": value "3 s" is not a number or a duration such as 3s`},
		{"a < inf", Check{}, `invalid check "a < inf": value "inf" is not a finite number`},
		{"a < NaN", Check{}, `invalid check "a < NaN": value "NaN" is not a finite number`},
		{"a < 1 == 2", Check{}, `invalid check "a < 1 == 2": value "1 == 2" is not a number or a duration such as 3s`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseCheck(tt.in)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Raw = tt.in
			if got != tt.want {
				t.Errorf("= %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
