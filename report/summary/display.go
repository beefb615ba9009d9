package summary

import (
	"fmt"

	"github.com/mcpchaos/mcpchaos/results"
)

// Formatting for renderers outside this package (the HTML report, the
// proxy's summary), so a value reads the same in every format as in the
// text summary.

// FormatMs formats a duration given in milliseconds as the text summary
// does: 850µs, 1.23ms, 45.6ms, 2.5s, 1m30s.
func FormatMs(ms float64) string { return fmtMs(ms) }

// FormatCheckValue formats a check's value in its key's unit, as the text
// summary's Checks block prints it: "620ms", "0", "1.52".
func FormatCheckValue(c CheckResult) string { return formatValue(c.Value, checkUnit(c.Check)) }

// Result is the text summary's Result line: PASS or FAIL, and why.
func (s *Summary) Result() string { return s.resultLine() }

// FormatRate formats calls per second as the text summary does: "40.0/s".
func FormatRate(x float64) string { return fmtRate(x) }

// FormatNum formats a count or a measure as the text summary does: a
// whole number as it is, anything else to three significant figures.
func FormatNum(x float64) string { return fmtNum(x) }

// Plural returns "1 call" or "2 calls".
func Plural(n int, noun string) string { return plural(n, noun) }

// NonZero lists the non-zero numeric leaves of one of the Summary's own
// values (its violations, its connection counts) other than "total", as
// "name n" pairs in document order; "" when all are zero.
func NonZero(v any) string { return nonzero(v) }

// KindCounts lists counts by kind as "kind n" pairs in kind order:
// "http_429 2, rpc_code 1".
func KindCounts(byKind map[string]int) string { return kindCounts(byKind) }

// OtherOutcomes lists a tool's outcomes other than ok that occurred, in
// report order: ["throttled 3", "cancelled 1"].
func (t ToolStats) OtherOutcomes() []string {
	var other []string
	for _, o := range results.Outcomes {
		if c := t.ByOutcome[o]; c > 0 && o != results.OK {
			other = append(other, fmt.Sprintf("%s %d", o, c))
		}
	}
	return other
}
