package client

import (
	"net/http"
	"testing"
	"time"
)

func TestRateLimitReset(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"none", http.Header{}, -1},
		{"RateLimit-Reset seconds", http.Header{"Ratelimit-Reset": {"3"}}, 3 * time.Second},
		{"X-RateLimit-Reset fraction", http.Header{"X-Ratelimit-Reset": {"1.5"}}, 1500 * time.Millisecond},
		{"X-RateLimit-Reset as a Unix time", http.Header{"X-Ratelimit-Reset": {"1800000004"}}, 4 * time.Second},
		{"a Unix time past", http.Header{"X-Ratelimit-Reset": {"1799999990"}}, 0},
		{"draft field, early", http.Header{"Ratelimit": {"limit=10, remaining=0, reset=7"}}, 7 * time.Second},
		{"draft field, structured", http.Header{"Ratelimit": {`"default";r=0;t=2`}}, 2 * time.Second},
		{"garbage", http.Header{"Ratelimit-Reset": {"soon"}, "Ratelimit": {"t=-3"}}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rateLimitReset(tc.h, now); got != tc.want {
				t.Errorf("rateLimitReset(%v) = %v, want %v", tc.h, got, tc.want)
			}
		})
	}
}

func FuzzRateLimitReset(f *testing.F) {
	for _, s := range []string{"3", "1.5", "1800000004", `"default";r=0;t=2`, "reset=7", "", "1e300", "NaN"} {
		f.Add(s)
	}
	now := time.Unix(1_800_000_000, 0)
	f.Fuzz(func(t *testing.T, v string) {
		h := http.Header{"Ratelimit-Reset": {v}, "Ratelimit": {v}}
		if d := rateLimitReset(h, now); d < -1 {
			t.Errorf("rateLimitReset(%q) = %v: below -1", v, d)
		}
	})
}

func TestRateLimitClaim(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    http.Header
		want RateLimitClaim
	}{
		{"none", http.Header{}, RateLimitClaim{}},
		{"RateLimit-Limit alone", http.Header{"Ratelimit-Limit": {"30"}}, RateLimitClaim{Limit: 30, From: "RateLimit-Limit"}},
		{"with a policy", http.Header{"Ratelimit-Limit": {"40"}, "Ratelimit-Policy": {"40;w=2"}}, RateLimitClaim{Limit: 40, Window: 2 * time.Second, From: "RateLimit-Limit"}},
		{"X- headers, early draft's quota policies", http.Header{"X-Ratelimit-Limit": {"10, 10;w=1, 1000;w=3600"}}, RateLimitClaim{Limit: 10, Window: time.Second, From: "X-RateLimit-Limit"}},
		{"structured policy", http.Header{"Ratelimit-Policy": {`"default";q=100;w=60`}}, RateLimitClaim{Limit: 100, Window: time.Minute, From: "RateLimit-Policy"}},
		{"early draft field", http.Header{"Ratelimit": {"limit=10, remaining=0, reset=7"}}, RateLimitClaim{Limit: 10, From: "RateLimit"}},
		{"garbage", http.Header{"Ratelimit-Limit": {"many"}, "Ratelimit-Policy": {"w=abc"}}, RateLimitClaim{}},
		{"a window without a limit", http.Header{"Ratelimit-Policy": {"w=1"}}, RateLimitClaim{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rateLimitClaim(tc.h); got != tc.want {
				t.Errorf("rateLimitClaim(%v) = %+v, want %+v", tc.h, got, tc.want)
			}
		})
	}
}

func FuzzRateLimitClaim(f *testing.F) {
	for _, s := range []string{"30", "40;w=2", "10, 10;w=1", `"default";q=100;w=60`, "limit=10", "", "1e300;w=1e300"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		h := http.Header{"Ratelimit-Limit": {v}, "X-Ratelimit-Policy": {v}, "Ratelimit": {v}}
		c := rateLimitClaim(h)
		if c.Limit < 0 || c.Limit > maxClaim || c.Window < 0 || (c.Limit == 0 && (c.Window != 0 || c.From != "")) {
			t.Errorf("rateLimitClaim(%q) = %+v", v, c)
		}
	})
}
