package engine

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"time"
)

// hintMembers are the members of a JSON-RPC error's data that servers and
// gateways use for a retry time, with the unit of each.
var hintMembers = []struct {
	name string
	unit time.Duration
}{
	{"retryAfter", time.Second},
	{"retryAfterSeconds", time.Second},
	{"retryAfterMs", time.Millisecond},
	{"waitTimeSeconds", time.Second},
}

// maxHint bounds a hint we believe: a day. Anything longer (or zero or
// negative) is not a hint.
const maxHint = 24 * time.Hour

// maxHintData bounds the error data read for a hint.
const maxHintData = 64 << 10

// hintFromData returns the retry time in a JSON-RPC error's data (an
// object with one of hintMembers: a number, or a number in a string as
// some gateways pass it on), and the member it came from.
func hintFromData(raw []byte) (time.Duration, string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || len(raw) > maxHintData {
		return 0, "", false
	}
	var data map[string]json.RawMessage
	if json.Unmarshal(raw, &data) != nil {
		return 0, "", false
	}
	for _, m := range hintMembers {
		v, ok := data[m.name]
		if !ok {
			continue
		}
		x, err := strconv.ParseFloat(string(bytes.Trim(v, `"`)), 64)
		if d := time.Duration(x * float64(m.unit)); err == nil && d > 0 && d <= maxHint {
			return d, "data." + m.name, true
		}
	}
	return 0, "", false
}

// hintText matches a retry time in a message: "retry after 3s", "retry in
// 2 seconds", "try again in 500ms", "Retry-After: 3".
var hintText = regexp.MustCompile(`(?i)\b(?:retry|try again)(?:[ _-]*(?:after|in))?\W{0,3}([0-9]+(?:\.[0-9]+)?)\s*(ms|milliseconds?|s|sec|secs|seconds?)?\b`)

// hintFromText returns the retry time in a message's text.
func hintFromText(s string) (time.Duration, bool) {
	m := hintText.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	x, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	unit := time.Second
	if len(m[2]) > 0 && (m[2][0] == 'm' || m[2][0] == 'M') {
		unit = time.Millisecond
	}
	d := time.Duration(x * float64(unit))
	if d <= 0 || d > maxHint {
		return 0, false
	}
	return d, true
}
