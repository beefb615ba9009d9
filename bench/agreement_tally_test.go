package bench

import (
	"fmt"
	"testing"

	"github.com/mcpchaos/mcpchaos/report"
)

// The agreement table: one run's outcome against the server's log, and
// each setup's tally of them.

// tally counts one setup's runs.
type tally struct {
	runs, agree, falsePass, falseViolation, notObservable, truthViolation int
	starved, marginal                                                     int // misses the server's log explains
	// uncut: runs in which no call was cut (the fault's draws spared
	// every call), whose right verdict is "not exercised".
	uncut int
}

// agreementOutcome is one run: the verdict and the truth.
type agreementOutcome struct {
	verdict, evidence string
	truth             bool   // the server's log: a cut call ran past cut + grace
	legacy            bool   // the server's log: a disconnected call of a 2025 era ran past it
	uncut             bool   // no call was cut: the right verdict is "not exercised"
	miss              string // why it disagreed (agreement_miss_test.go), "" when it agreed
}

// tableHeader heads the agreement table (markdown), both benchmarks'.
const tableHeader = "| setup | runs | agreement | false passes | false violations | not_observable | truth: violation | misses: starved, marginal | no call cut |\n" +
	"|---|---|---|---|---|---|---|---|---|\n"

// row is the setup's line of the table.
func (t tally) row(name string) string {
	return fmt.Sprintf("| %s | %d | %d/%d | %d | %d | %d | %d | %d, %d | %d |\n", name, t.runs, t.agree, t.runs, t.falsePass,
		t.falseViolation, t.notObservable, t.truthViolation, t.starved, t.marginal, t.uncut)
}

func (t *tally) add(o agreementOutcome) {
	t.runs++
	switch o.miss {
	case missStarved:
		t.starved++
	case missMarginal:
		t.marginal++
	}
	if o.truth {
		t.truthViolation++
	}
	if o.uncut {
		t.uncut++
	}
	switch {
	case o.agrees():
		t.agree++
	case o.verdict == report.StatusNotObservable:
		t.notObservable++
	case o.truth:
		t.falsePass++
	default:
		t.falseViolation++
	}
}

// right is the verdict the server's log calls for.
func (o agreementOutcome) right() string {
	switch {
	case o.uncut:
		return report.StatusNotExercised
	case o.truth:
		return report.StatusViolation
	}
	return report.StatusPass
}

// agrees reports whether the verdict is the one the server's log calls
// for. When only disconnected calls of a 2025 era ran on (legacy), both
// "pass" (no work seen after a cancel) and "expected legacy behaviour"
// (work seen, after disconnects only) are right: neither fails the run,
// as the 2025 revisions call for.
func (o agreementOutcome) agrees() bool {
	if o.legacy && !o.truth && !o.uncut {
		return o.verdict == report.StatusPass || o.verdict == report.StatusLegacy
	}
	return o.verdict == o.right()
}

// TestAgreementOutcome: the verdict that agrees with the server's log,
// and where a run with only legacy run-ons lands in the tally.
func TestAgreementOutcome(t *testing.T) {
	for _, tc := range []struct {
		name  string
		o     agreementOutcome
		agree bool
	}{
		{"a leak called a violation", agreementOutcome{verdict: report.StatusViolation, truth: true}, true},
		{"a leak called legacy", agreementOutcome{verdict: report.StatusLegacy, truth: true, legacy: true}, false},
		{"nothing ran on: pass", agreementOutcome{verdict: report.StatusPass}, true},
		{"nothing ran on: legacy", agreementOutcome{verdict: report.StatusLegacy}, false},
		{"only disconnects ran on (2025): legacy", agreementOutcome{verdict: report.StatusLegacy, legacy: true}, true},
		{"only disconnects ran on (2025): pass", agreementOutcome{verdict: report.StatusPass, legacy: true}, true},
		{"only disconnects ran on (2025): violation", agreementOutcome{verdict: report.StatusViolation, legacy: true}, false},
		{"no call cut", agreementOutcome{verdict: report.StatusNotExercised, uncut: true}, true},
		{"no call cut, yet a pass", agreementOutcome{verdict: report.StatusPass, uncut: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.o.agrees(); got != tc.agree {
				t.Errorf("agrees() = %v, want %v", got, tc.agree)
			}
			var tl tally
			tl.add(tc.o)
			if (tl.agree == 1) != tc.agree {
				t.Errorf("tally %+v: agree counted %d, want %v", tl, tl.agree, tc.agree)
			}
		})
	}
}
