package summary

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// fmtMs formats a duration given in milliseconds the way a person reads
// it: 850µs, 1.23ms, 45.6ms, 2.5s, 1m30s.
func fmtMs(ms float64) string {
	switch {
	case ms == 0:
		return "0s"
	case ms < 0:
		return "-" + fmtMs(-ms)
	case ms < 1:
		return strconv.FormatFloat(ms*1000, 'f', 0, 64) + "µs"
	case ms < 1000:
		return sig3(ms) + "ms"
	case ms < 60_000:
		return sig3(ms/1000) + "s"
	}
	return time.Duration(ms * float64(time.Millisecond)).Round(time.Second).String()
}

// sig3 formats x ≥ 1 with three significant figures, without trailing
// zeros: 1.23, 12.3, 123, 2.5.
func sig3(x float64) string {
	decimals := 2
	switch {
	case x >= 100:
		decimals = 0
	case x >= 10:
		decimals = 1
	}
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// fmtNum formats a count or a measure (call-seconds, a probe's reading):
// a whole number as it is, anything else to three significant figures and
// at most three decimals: 3, 1.52, 0.65, 120.
func fmtNum(x float64) string {
	if x == math.Trunc(x) || math.Abs(x) >= 100 {
		return strconv.FormatFloat(math.Round(x), 'f', -1, 64)
	}
	return strconv.FormatFloat(round3(x), 'g', 3, 64)
}

// fmtRate formats calls per second.
func fmtRate(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) + "/s" }

// formatValue formats a value in its unit (unitMs, unitS or none).
func formatValue(x float64, unit string) string {
	switch unit {
	case unitMs:
		return fmtMs(x)
	case unitS:
		return fmtMs(x * 1000)
	}
	return fmtNum(x)
}

// checkUnit returns the unit of a rendered check's value, from the
// expression before its operator.
func checkUnit(check string) string {
	i := strings.IndexAny(check, "<>=!")
	if i < 0 {
		return unitNone
	}
	expr := strings.TrimSpace(check[:i])
	if strings.HasPrefix(expr, "p") && strings.HasSuffix(expr, ")") {
		return unitMs
	}
	if pattern, ok := knownPattern(expr, KnownKeys()); ok {
		return keyUnit(pattern)
	}
	return unitNone
}

// nonzero lists the non-zero numeric leaves of v's JSON, other than
// "total", as "name n" pairs in document order: "reserved_code 3,
// not_jsonrpc 2". It is "" when all are zero.
func nonzero(v any) string {
	leaves, _ := flatten(v) // v is one of the Summary's own types
	var parts []string
	for _, l := range leaves {
		if l.value != 0 && l.key != "total" {
			parts = append(parts, l.key+" "+fmtNum(l.value))
		}
	}
	return strings.Join(parts, ", ")
}

// kindCounts lists counts by kind as "kind n" pairs in kind order:
// "http_429 2, rpc_code 1".
func kindCounts(byKind map[string]int) string {
	parts := sortedKeys(byKind)
	for i, k := range parts {
		parts[i] = fmt.Sprintf("%s %d", k, byKind[k])
	}
	return strings.Join(parts, ", ")
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// plural returns "1 call" or "2 calls".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// round3 rounds to three decimals, so rates and means print cleanly.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// usToMs converts microseconds to milliseconds.
func usToMs(us int64) float64 { return float64(us) / 1000 }
