package engine

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/client"
)

func TestHintIn(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   client.Event
		want bool
	}{
		{"Retry-After", client.Event{Kind: client.EvHeaders, RetryAfter: 2e9, RateLimitReset: -1}, true},
		{"RateLimit-Reset", client.Event{Kind: client.EvHeaders, RetryAfter: -1, RateLimitReset: 1e9}, true},
		{"no header", client.Event{Kind: client.EvHeaders, RetryAfter: -1, RateLimitReset: -1}, false},
		{"data retryAfter", client.Event{Kind: client.EvRPCError, Raw: []byte(`{"retryAfter": 3}`)}, true},
		{"data retryAfterSeconds", client.Event{Kind: client.EvRPCError, Raw: []byte(`{"retryAfterSeconds":1.5}`)}, true},
		{"data retryAfterMs as text", client.Event{Kind: client.EvRPCError, Raw: []byte(`{"retryAfterMs":"1500"}`)}, true},
		{"data waitTimeSeconds", client.Event{Kind: client.EvRPCError, Raw: []byte(` {"waitTimeSeconds":4} `)}, true},
		{"data zero", client.Event{Kind: client.EvRPCError, Raw: []byte(`{"retryAfter":0}`)}, false},
		{"data other", client.Event{Kind: client.EvRPCError, Raw: []byte(`{"reason":"busy"}`)}, false},
		{"data not an object", client.Event{Kind: client.EvRPCError, Raw: []byte(`"retryAfter 3"`)}, false},
		{"message words", client.Event{Kind: client.EvRPCError, Message: []byte(`rate limit exceeded (retry after 3s)`)}, true},
		{"message without a wait", client.Event{Kind: client.EvRPCError, Message: []byte(`rate limit exceeded, retry later`)}, false},
		{"tool error text", client.Event{Kind: client.EvResult, Result: client.Result{IsError: true, Text: []byte(`Too many requests. Try again in 2 seconds.`)}}, true},
		{"a successful result is no hint", client.Event{Kind: client.EvResult, Result: client.Result{Text: []byte(`retry after 3s`)}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := hintIn(tc.ev); got != tc.want {
				t.Errorf("hintIn = %v, want %v", got, tc.want)
			}
		})
	}
}

func FuzzDataHint(f *testing.F) {
	for _, s := range []string{`{"retryAfter":3}`, `{"retryAfterMs":"1500"}`, `{}`, `[`, `{"waitTimeSeconds":-1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { _, _, _ = hintFromData(raw) })
}
