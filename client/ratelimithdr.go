package client

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The rate-limit headers other than Retry-After that say when to come
// back: `RateLimit-Reset` and `X-RateLimit-Reset` (seconds, or a Unix time
// in seconds as some servers send), and the IETF draft's structured
// `RateLimit` field (`limit=10, remaining=0, reset=3` in early drafts,
// `"default";r=0;t=3` in later ones).

// unixReset: a reset value above this is a Unix time, not a delay.
const unixReset = 1_000_000_000

// rateLimitReset returns the wait the rate-limit headers give, or -1 when
// they give none.
func rateLimitReset(h http.Header, now time.Time) time.Duration {
	for _, k := range []string{"RateLimit-Reset", "X-RateLimit-Reset"} {
		if d := resetValue(h.Get(k), now); d >= 0 {
			return d
		}
	}
	v := h.Get("RateLimit")
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' }) {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok && (name == "reset" || name == "t") {
			if d := resetValue(val, now); d >= 0 {
				return d
			}
		}
	}
	return -1
}

// resetValue reads one reset value: seconds (a Unix time when large).
func resetValue(v string, now time.Time) time.Duration {
	n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	switch {
	case v == "" || err != nil || n < 0 || n > 1e12:
		return -1
	case n > unixReset:
		return max(time.Unix(int64(n), 0).Sub(now), 0)
	}
	return time.Duration(n * float64(time.Second))
}
