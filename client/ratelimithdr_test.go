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
