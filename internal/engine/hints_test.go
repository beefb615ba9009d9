package engine

import (
	"testing"
	"time"
)

func TestHintFromData(t *testing.T) {
	tests := []struct {
		name, data string
		want       time.Duration
		from       string
		ok         bool
	}{
		{"seconds", `{"retryAfter":3}`, 3 * time.Second, "data.retryAfter", true},
		{"fraction", `{"retryAfterSeconds":0.5}`, 500 * time.Millisecond, "data.retryAfterSeconds", true},
		{"milliseconds", `{"retryAfterMs":250}`, 250 * time.Millisecond, "data.retryAfterMs", true},
		{"wait time", `{"waitTimeSeconds":2,"x":1}`, 2 * time.Second, "data.waitTimeSeconds", true},
		{"a number in a string", `{"retryAfter":"3"}`, 3 * time.Second, "data.retryAfter", true},
		{"zero is no hint", `{"retryAfter":0}`, 0, "", false},
		{"negative", `{"retryAfter":-1}`, 0, "", false},
		{"absurd", `{"retryAfter":1e12}`, 0, "", false},
		{"not an object", `[1]`, 0, "", false},
		{"none", ``, 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, from, ok := hintFromData([]byte(tt.data))
			if d != tt.want || from != tt.from || ok != tt.ok {
				t.Errorf("hintFromData(%s) = %v, %q, %v; want %v, %q, %v", tt.data, d, from, ok, tt.want, tt.from, tt.ok)
			}
		})
	}
}

func TestHintFromText(t *testing.T) {
	tests := []struct {
		text string
		want time.Duration
		ok   bool
	}{
		{"rate limit exceeded (retry after 3s)", 3 * time.Second, true},
		{"Too many requests, retry in 2 seconds", 2 * time.Second, true},
		{"please try again in 500ms", 500 * time.Millisecond, true},
		{"Retry-After: 4", 4 * time.Second, true},
		{"retry after 1.5 sec", 1500 * time.Millisecond, true},
		{"rate limit exceeded", 0, false},
		{"retry later", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			d, ok := hintFromText(tt.text)
			if d != tt.want || ok != tt.ok {
				t.Errorf("hintFromText(%q) = %v, %v; want %v, %v", tt.text, d, ok, tt.want, tt.ok)
			}
		})
	}
}

func FuzzHintFromText(f *testing.F) {
	f.Add("rate limit exceeded (retry after 3s)")
	f.Add("try again in 99999999999999999999 ms")
	f.Fuzz(func(t *testing.T, s string) {
		if d, ok := hintFromText(s); ok && (d < 0 || d > maxHint) {
			t.Errorf("hintFromText(%q) = %v, outside 0..%v", s, d, maxHint)
		}
	})
}

func FuzzHintFromData(f *testing.F) {
	f.Add([]byte(`{"retryAfter":3}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, _, ok := hintFromData(b); ok && (d < 0 || d > maxHint) {
			t.Errorf("hintFromData(%q) = %v, outside 0..%v", b, d, maxHint)
		}
	})
}
