package summary

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/results"
)

// Check is one pass/fail condition of a scenario: a dotted key of the
// summary JSON (Key), or a percentile of a histogram (Hist and Percentile,
// Key empty), compared with Value.
type Check struct {
	// Raw is the check as written, for messages.
	Raw string
	// Key is a dotted key, one of KnownKeys (placeholders filled in).
	Key string
	// Hist is one of HistogramNames and Percentile is in (0, 100], for
	// pNN(hist).
	Hist       string
	Percentile float64
	// Op is one of < <= == != >= >.
	Op    string
	Value float64
	// Unit is "ms" when the value was written as a duration (Value is then
	// in milliseconds) and "" for a plain number. A duration compared with
	// a key in seconds is converted; with a key that is not a time it is an
	// error. Histogram values are always milliseconds.
	Unit string
	// Line and Column locate the check in the scenario file (0: unknown).
	Line, Column int
}

// String returns the check as written, or rebuilt from its fields.
func (c Check) String() string {
	if c.Raw != "" {
		return c.Raw
	}
	v := strconv.FormatFloat(c.Value, 'f', -1, 64)
	if c.Unit == unitMs {
		v += "ms"
	}
	return c.expr() + " " + c.Op + " " + v
}

// expr is the left-hand side: the key or pNN(hist).
func (c Check) expr() string {
	if c.Hist != "" {
		return "p" + strconv.FormatFloat(c.Percentile, 'f', -1, 64) + "(" + c.Hist + ")"
	}
	return c.Key
}

// CheckError is a check that names something the summary does not have.
type CheckError struct {
	Line, Column int
	Check        string // the check as written
	Msg          string
}

func (e *CheckError) Error() string {
	var b strings.Builder
	switch {
	case e.Line > 0 && e.Column > 0:
		fmt.Fprintf(&b, "line %d, column %d: ", e.Line, e.Column)
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	fmt.Fprintf(&b, "check %q: %s", e.Check, e.Msg)
	return b.String()
}

// checkOps is the immutable table of comparison operators.
var checkOps = [...]string{"<", "<=", "==", "!=", ">=", ">"}

// ScenarioChecks turns a scenario's checks, parsed by package scenarios
// (the syntax), into the report's and resolves each against the summary's
// keys (see ValidateCheck) and the names a run of sc has: a placeholder
// segment must name a fault kind, probe, throttling kind, timeout policy or
// server coping that exists (names gives those the caller knows). Every
// error starts with FILE:LINE:COLUMN; the checks that resolve are returned
// in order.
func ScenarioChecks(sc *scenarios.Scenario, names Names) ([]Check, []error) {
	checks := make([]Check, 0, len(sc.Checks))
	known, doms := KnownKeys(), domains(sc, names)
	var errs []error
	for _, c := range sc.Checks {
		rc := fromScenario(c)
		_, err := resolveCheck(rc, known, doms)
		if err == nil {
			err = neverHad(sc, rc)
		}
		if err != nil {
			// The position goes in front, as FILE:LINE:COLUMN, once.
			var ce *CheckError
			if errors.As(err, &ce) {
				err = fmt.Errorf("check %q: %s", ce.Check, ce.Msg)
			}
			errs = append(errs, fmt.Errorf("%s:%d:%d: %w", sc.File, c.Pos.Line, c.Pos.Column, err))
			continue
		}
		checks = append(checks, rc)
	}
	return checks, errs
}

// ValidateCheck reports whether c can be evaluated against a summary: a
// known operator, a known key (see KnownKeys; any name in a placeholder
// segment) or histogram, a percentile in (0, 100], and a duration only
// against a time. The error is a *CheckError naming the line and quoting
// the check.
func ValidateCheck(c Check) error {
	_, err := resolveCheck(c, KnownKeys(), nil)
	return err
}

// resolveCheck validates c and returns the known key it uses ("" for a
// histogram). doms are the names each placeholder segment admits (see
// domains; nil: any).
func resolveCheck(c Check, known []string, doms map[string]domain) (pattern string, err error) {
	fail := func(format string, args ...any) (string, error) {
		return "", &CheckError{Line: c.Line, Column: c.Column, Check: c.String(), Msg: fmt.Sprintf(format, args...)}
	}
	if !validOp(c.Op) {
		return fail("unknown operator %q (want one of %s)", c.Op, strings.Join(checkOps[:], " "))
	}
	if c.Unit != unitNone && c.Unit != unitMs {
		return fail("unknown unit %q (want \"ms\" or none)", c.Unit)
	}
	if math.IsNaN(c.Value) || math.IsInf(c.Value, 0) {
		return fail("value %v is not a finite number", c.Value)
	}
	switch {
	case c.Hist != "" && c.Key != "":
		return fail("names both the key %q and the histogram %q", c.Key, c.Hist)
	case c.Hist != "":
		if histIndex(c.Hist) < 0 {
			return fail("unknown histogram %q (known: %s)", c.Hist, strings.Join(histNames[:], ", "))
		}
		if !(c.Percentile > 0 && c.Percentile <= 100) {
			return fail("percentile %v is outside (0, 100]", c.Percentile)
		}
		return "", nil
	case c.Key == "":
		return fail("names neither a key nor a histogram")
	}
	pattern, ok := knownPattern(c.Key, known)
	if !ok {
		if s := scenarios.Suggest(c.Key, known); s != "" {
			return fail("unknown key %q (did you mean %q? every key is listed in docs/summary.md)", c.Key, s)
		}
		return fail("unknown key %q (every key is listed in docs/summary.md)", c.Key)
	}
	if msg := unknownName(c.Key, pattern, doms); msg != "" {
		return fail("%s", msg)
	}
	if c.Unit == unitMs && keyUnit(pattern) == unitNone {
		return fail("a duration cannot be compared with %q, which is not a time", c.Key)
	}
	return pattern, nil
}

func validOp(op string) bool {
	for _, o := range checkOps {
		if o == op {
			return true
		}
	}
	return false
}

// holds reports whether x op want. It is the one place a check's
// comparison is made.
func holds(x float64, op string, want float64) bool {
	switch op {
	case "<":
		return x < want
	case "<=":
		return x <= want
	case "==":
		return x == want
	case "!=":
		return x != want
	case ">=":
		return x >= want
	case ">":
		return x > want
	}
	return false
}

// Evaluate evaluates the checks against the summary, filling s.Checks, and
// decides s.Pass: true when every check passed (or there are none) and,
// when failOnViolation, no verdict is a violation. A check whose value
// cannot be found fails, with the reason, and so does one whose key
// describes nothing in this run (unexercised.go). A warning never fails.
func (s *Summary) Evaluate(checks []Check, failOnViolation bool) {
	known := KnownKeys()
	values, objects, err := s.readings()
	s.Checks = make([]CheckResult, 0, len(checks))
	s.Pass = true
	for _, c := range checks {
		r := s.evaluate(c, known, values, objects, err)
		s.Pass = s.Pass && r.Pass
		s.Checks = append(s.Checks, r)
	}
	s.FailOnViolation = failOnViolation
	if failOnViolation && len(s.Violations()) > 0 {
		s.Pass = false
	}
	if s.ClientLimits.Hit {
		s.Pass = false // the server was not given the load asked for
	}
}

// Violations returns the areas whose verdict is a violation, in report
// order.
func (s *Summary) Violations() []string {
	var areas []string
	for _, v := range s.Verdicts {
		if v.Status == StatusViolation {
			areas = append(areas, v.Area)
		}
	}
	return areas
}

// FailedChecks returns how many checks failed.
func (s *Summary) FailedChecks() int {
	n := 0
	for _, c := range s.Checks {
		if !c.Pass {
			n++
		}
	}
	return n
}

// resultLine is the text summary's Result: PASS or FAIL, and why.
func (s *Summary) resultLine() string {
	checks := "no checks"
	if len(s.Checks) > 0 {
		checks = plural(len(s.Checks), "check")
	}
	violations := s.Violations()
	if s.Pass {
		if len(violations) > 0 {
			checks += "; violation in " + strings.Join(violations, ", ") + " not failing the run: fail_on_violation is off"
		}
		return "PASS (" + checks + ")"
	}
	// A client limit comes first: the server was not given the load asked
	// for, so what it did under that load is not its own doing alone.
	var why []string
	if s.ClientLimits.Hit {
		why = append(why, s.ClientLimits.reason())
	}
	if n := s.FailedChecks(); n > 0 {
		why = append(why, fmt.Sprintf("%d of %s failed", n, checks))
	}
	if s.FailOnViolation && len(violations) > 0 {
		v := "violation in " + strings.Join(violations, ", ")
		if s.ClientLimits.Hit {
			v += ", seen while the client was the limit"
		}
		why = append(why, v)
	}
	if len(why) == 0 {
		return "FAIL"
	}
	return "FAIL (" + strings.Join(why, "; ") + ")"
}

// evaluate evaluates one check; flatErr is the error of flattening s.
func (s *Summary) evaluate(c Check, known []string, values map[string]float64, objects map[string]bool, flatErr error) CheckResult {
	r := CheckResult{Check: c.String(), Line: c.Line}
	// The names were checked at validation: here, any name of a map that
	// did not occur is 0.
	pattern, err := resolveCheck(c, known, nil)
	if err != nil {
		var ce *CheckError
		if errors.As(err, &ce) {
			r.Reason = ce.Msg
		} else {
			r.Reason = err.Error()
		}
		return r
	}
	var x, cmp float64
	if c.Hist != "" {
		v, reason := s.percentile(c.Hist, c.Percentile)
		if reason != "" {
			r.Reason = reason
			return r
		}
		x, cmp = v, v
	} else {
		if flatErr != nil {
			r.Reason = flatErr.Error()
			return r
		}
		if why := s.unexercised(c.Key, objects, values); why != "" {
			r.Reason = why
			return r
		}
		// A known key that is absent is a kind or name that did not
		// occur, or a count that is 0.
		x = values[c.Key]
		cmp = x
		if c.Unit == unitMs && keyUnit(pattern) == unitS {
			cmp = x * 1000
		}
	}
	r.Value = x
	r.Pass = holds(cmp, c.Op, c.Value)
	return r
}

// percentile returns the value at percentile p of a histogram, in ms, or a
// reason it cannot.
func (s *Summary) percentile(name string, p float64) (ms float64, reason string) {
	l := s.Latency.ByName(name)
	if l == nil || l.Count == 0 {
		return 0, fmt.Sprintf("the %s histogram has no values", name)
	}
	if s.Histograms != nil {
		return usToMs(s.Histograms.Quantile(name, p)), ""
	}
	switch p {
	case 50:
		return l.P50, ""
	case 90:
		return l.P90, ""
	case 99:
		return l.P99, ""
	case 99.9:
		return l.P999, ""
	case 100:
		return l.Max, ""
	}
	return 0, fmt.Sprintf("p%v(%s) needs the histogram, and a summary read from JSON has only p50, p90, p99, p999 and max", p, name)
}

// ParseChecks parses checks recorded in a results header (report.Evaluation).
// A check that does not parse or names nothing the summary has is an error
// naming it (the file was damaged or written by another version).
func ParseChecks(specs []results.CheckSpec) ([]Check, error) {
	out := make([]Check, 0, len(specs))
	for _, s := range specs {
		c, err := ParseCheck(s.Check)
		if err != nil {
			return nil, err
		}
		c.Line, c.Column = s.Line, s.Column
		if err := ValidateCheck(c); err != nil {
			return nil, fmt.Errorf("recorded check: %w", err)
		}
		out = append(out, c)
	}
	return out, nil
}

// ParseCheck parses one check as written (a results file keeps it so).
func ParseCheck(raw string) (Check, error) {
	c, err := scenarios.ParseCheck(raw)
	if err != nil {
		return Check{}, fmt.Errorf("recorded check: %w", err)
	}
	return fromScenario(c), nil
}

// fromScenario converts a check parsed by package scenarios.
func fromScenario(c scenarios.Check) Check {
	return Check{Raw: c.Raw, Key: c.Key, Hist: c.Hist, Percentile: c.Percentile, Op: c.Op, Value: c.Value,
		Unit: c.Unit, Line: c.Pos.Line, Column: c.Pos.Column}
}
