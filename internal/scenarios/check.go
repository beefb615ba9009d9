package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Check is one pass/fail condition, written "EXPR OP VALUE":
//
//	cancellation.orphaned == 0      a dotted key of the JSON summary
//	p99(call) < 3s                  a percentile of a histogram
//
// VALUE is a number or a Go duration; durations are converted to
// milliseconds (Unit "ms"), the unit of every histogram. Whether a dotted
// key exists, and whether a check holds, is for package report to say
// (report.ScenarioChecks); ParseCheck checks the syntax.
type Check struct {
	Raw        string  // the text as written
	Expr       string  // the left-hand side, normalised: "p99(call)", "cancellation.orphaned"
	Func       string  // "" for a dotted key, "p" for a percentile
	Percentile float64 // Func "p": 50, 90, 99, 99.9, ...
	Hist       string  // Func "p": the histogram
	Key        string  // Func "": the dotted key
	Op         string  // <, <=, ==, !=, >=, >
	Value      float64
	Unit       string // "" for a number, "ms" for a duration
	Pos        Pos
}

// checkHistograms is the immutable table of histograms pNN() accepts.
var checkHistograms = [...]string{"call", "service", "first_progress", "progress_gap", "timeout_error"}

// checkOps lists the operators, two-character ones first.
var checkOps = [...]string{"<=", ">=", "==", "!=", "<", ">"}

// ParseCheck parses one check. The returned Check has no Pos.
func ParseCheck(s string) (Check, error) {
	c := Check{Raw: s}
	i := strings.IndexAny(s, "<>=!")
	if i < 0 {
		return c, fmt.Errorf("invalid check %q: want EXPR OP VALUE with OP one of %s", s, strings.Join(checkOps[:], " "))
	}
	for _, op := range checkOps {
		if strings.HasPrefix(s[i:], op) {
			c.Op = op
			break
		}
	}
	if c.Op == "" {
		return c, fmt.Errorf("invalid check %q: unknown operator at %q (want one of %s)", s, clip(s[i:]), strings.Join(checkOps[:], " "))
	}
	lhs := strings.TrimSpace(s[:i])
	rhs := strings.TrimSpace(s[i+len(c.Op):])
	if lhs == "" {
		return c, fmt.Errorf("invalid check %q: missing the expression before %s", s, c.Op)
	}
	if rhs == "" {
		return c, fmt.Errorf("invalid check %q: missing the value after %s", s, c.Op)
	}
	if err := c.parseExpr(lhs); err != nil {
		return c, fmt.Errorf("invalid check %q: %w", s, err)
	}
	if err := c.parseValue(rhs); err != nil {
		return c, fmt.Errorf("invalid check %q: %w", s, err)
	}
	return c, nil
}

func (c *Check) parseExpr(lhs string) error {
	name, rest, isCall := strings.Cut(lhs, "(")
	if !isCall {
		if !validKey(lhs) {
			return fmt.Errorf("%q is not a dotted key (lower-case words joined by dots) or pNN(histogram)", lhs)
		}
		c.Expr, c.Key = lhs, lhs
		return nil
	}
	name = strings.TrimSpace(name)
	arg, closed := strings.CutSuffix(rest, ")")
	if !closed {
		return fmt.Errorf("%q: missing closing parenthesis", lhs)
	}
	arg = strings.TrimSpace(arg)
	p, err := parsePercentile(name)
	if err != nil {
		return err
	}
	if !contains(checkHistograms[:], arg) {
		return fmt.Errorf("unknown histogram %q (known: %s)", arg, strings.Join(checkHistograms[:], ", "))
	}
	c.Func, c.Percentile, c.Hist = "p", p, arg
	c.Expr = name + "(" + arg + ")"
	return nil
}

// parsePercentile reads p50, p90, p99, p999 (99.9), p9999 (99.99), p99.9
// and p100.
func parsePercentile(name string) (float64, error) {
	digits, ok := strings.CutPrefix(name, "p")
	bad := fmt.Errorf("unknown function %q (want a percentile such as p50, p99, p999 or p99.9)", name)
	if !ok || digits == "" {
		return 0, bad
	}
	for _, r := range digits {
		if (r < '0' || r > '9') && r != '.' {
			return 0, bad
		}
	}
	num := digits
	if !strings.Contains(digits, ".") && len(digits) > 2 && digits != "100" {
		num = digits[:2] + "." + digits[2:]
	}
	p, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, bad
	}
	if p <= 0 || p > 100 {
		return 0, fmt.Errorf("percentile %q is outside (0, 100]", name)
	}
	return p, nil
}

// validKey reports whether key matches [a-z0-9_-]+(\.[a-z0-9_-]+)*.
func validKey(key string) bool {
	for _, part := range strings.Split(key, ".") {
		if !ValidKeySegment(part) {
			return false
		}
	}
	return true
}

func (c *Check) parseValue(rhs string) error {
	if f, err := strconv.ParseFloat(rhs, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("value %q is not a finite number", rhs)
		}
		c.Value = f
		return nil
	}
	if d, err := time.ParseDuration(rhs); err == nil {
		c.Value = float64(d) / float64(time.Millisecond)
		c.Unit = "ms"
		return nil
	}
	return fmt.Errorf("value %q is not a number or a duration such as 3s", rhs)
}

// String returns the check as written.
func (c Check) String() string { return c.Raw }
