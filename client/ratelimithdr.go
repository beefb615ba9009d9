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

// RateLimitClaim is the limit a response's rate-limit headers claim: a
// quota of Limit calls per Window. Limit is 0 when no header gave one,
// Window 0 when none said its length.
type RateLimitClaim struct {
	Limit  int
	Window time.Duration
	// From names the header the limit came from.
	From string
}

// maxClaim bounds a claimed quota; a larger one is not read.
const maxClaim = 1_000_000_000

// rateLimitClaim reads the limit the headers claim: `RateLimit-Limit` or
// `X-RateLimit-Limit` (`10`, or `10, 10;w=1` with a policy as in early
// drafts), `RateLimit-Policy` or `X-RateLimit-Policy` (`10;w=1`, or
// `"default";q=10;w=1` in later drafts) and the early draft's
// `RateLimit: limit=10, ...` field. The window comes from a `w=` seconds
// parameter.
func rateLimitClaim(h http.Header) RateLimitClaim {
	var c RateLimitClaim
	for _, k := range []string{"RateLimit-Limit", "X-RateLimit-Limit", "RateLimit-Policy", "X-RateLimit-Policy"} {
		v := h.Get(k)
		if v == "" {
			continue
		}
		n, w := quotaOf(v)
		if c.Limit == 0 && n > 0 {
			c.Limit, c.From = n, k
		}
		if c.Window == 0 && w > 0 {
			c.Window = w
		}
	}
	if c.Limit == 0 {
		for _, part := range strings.Split(h.Get("RateLimit"), ",") {
			name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
			if n, err := strconv.Atoi(strings.TrimSpace(val)); ok && name == "limit" && err == nil && n > 0 && n <= maxClaim {
				c.Limit, c.From = n, "RateLimit"
			}
		}
	}
	if c.Limit == 0 {
		c.Window = 0
	}
	return c
}

// quotaOf reads the first quota of a limit or policy value: its leading
// number or its q= parameter, and its w= window in seconds, or the window
// of a later policy of the same quota (`10, 10;w=1`, as early drafts
// wrote a limit followed by its policies).
func quotaOf(v string) (n int, w time.Duration) {
	for i, item := range strings.Split(v, ",") {
		q, qw := quotaItem(item)
		switch {
		case i == 0:
			n, w = q, qw
		case w == 0 && q == n && qw > 0:
			w = qw
		}
		if i > 16 {
			break
		}
	}
	return n, w
}

// quotaItem reads one item of a limit or policy value.
func quotaItem(item string) (n int, w time.Duration) {
	for i, part := range strings.Split(item, ";") {
		part = strings.TrimSpace(part)
		name, val, isParam := strings.Cut(part, "=")
		switch {
		case i == 0 && !isParam:
			if x, err := strconv.Atoi(part); err == nil && x > 0 && x <= maxClaim {
				n = x
			}
		case isParam && name == "q":
			if x, err := strconv.Atoi(val); err == nil && x > 0 && x <= maxClaim {
				n = x
			}
		case isParam && name == "w":
			if x, err := strconv.ParseFloat(val, 64); err == nil && x > 0 && x <= 1e7 {
				w = time.Duration(x * float64(time.Second))
			}
		}
	}
	return n, w
}
