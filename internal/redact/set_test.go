package redact

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	const secret = "s3cr3t-Tok<en>&\"x\n"
	quoted := fmt.Sprintf("%q", secret)
	jsonOf := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	tests := []struct {
		name   string
		values []string
		in     string
		want   string
	}{
		{"as is", []string{"abcdef"}, "Bearer abcdef!", "Bearer [redacted]!"},
		{"every occurrence", []string{"abcdef"}, "abcdef abcdef", "[redacted] [redacted]"},
		{"Go-quoted", []string{secret}, "bad value " + quoted, `bad value "[redacted]"`},
		{"JSON", []string{secret}, jsonOf(map[string]string{"h": secret}), `{"h":"[redacted]"}`},
		{"JSON of a Go-quoted message", []string{secret}, jsonOf("error: " + quoted), `"error: \"[redacted]\""`},
		{"query-escaped", []string{"a b/c+d"}, "?x=a+b%2Fc%2Bd", "?x=[redacted]"},
		{"HTML-escaped", []string{"<tok&en>"}, "<td>&lt;tok&amp;en&gt;</td>", "<td>[redacted]</td>"},
		{"longest first", []string{"abcd", "abcdefgh"}, "abcdefgh abcd", "[redacted] [redacted]"},
		{"short values are not value-redacted", []string{"abc"}, "abc abcd", "abc abcd"},
		{"short numbers are not value-redacted", []string{"8080"}, "port 8080", "port 8080"},
		{"long numbers are", []string{"12345678"}, "pin 12345678", "pin [redacted]"},
		{"empty set", nil, "anything", "anything"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(tt.values...)
			if got := s.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := string(s.Bytes([]byte(tt.in))); got != tt.want {
				t.Errorf("Bytes(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNilSet(t *testing.T) {
	var s *Set
	s.Add("abcdef")
	if got := s.String("abcdef"); got != "abcdef" {
		t.Errorf("nil set String = %q", got)
	}
	if s.Len() != 0 || s.Values() != nil {
		t.Errorf("nil set holds %v", s.Values())
	}
}

func TestAddLater(t *testing.T) {
	s := New()
	if got := s.String("token-1234"); got != "token-1234" {
		t.Fatalf("empty set redacted: %q", got)
	}
	s.Add("token-1234", "token-1234")
	o := New("other-5678")
	s.Merge(o)
	if got := s.String("token-1234 other-5678"); got != "[redacted] [redacted]" {
		t.Errorf("after Add and Merge: %q", got)
	}
	if s.Len() != 2 {
		t.Errorf("Len = %d, want 2 (duplicates count once)", s.Len())
	}
}

func TestJSON(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		in     string
		want   string
	}{
		{"inside strings", []string{"abcdef"}, `{"a":"x abcdef y","abcdef":1}`, `{"a":"x [redacted] y","[redacted]":1}`},
		{"not in literals and numbers", []string{"true", "123456789"}, `{"ok":true,"n":123456789,"s":"true"}`, `{"ok":true,"n":123456789,"s":"[redacted]"}`},
		{"escaped value", []string{"a\nb\"cd"}, `{"e":"x a\nb\"cd"}`, `{"e":"x [redacted]"}`},
		{"an escape is not a match", []string{"nabc"}, `{"e":"\nabc"}`, `{"e":"\nabc"}`},
		{"a torn line", []string{"abcdef"}, `{"e":"abcdef`, `{"e":"[redacted]`},
		{"untouched", []string{"abcdef"}, `{"e":"\u003c"}`, `{"e":"\u003c"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(New(tt.values...).JSON([]byte(tt.in)))
			if got != tt.want {
				t.Errorf("JSON(%s) = %s, want %s", tt.in, got, tt.want)
			}
			if json.Valid([]byte(tt.in)) && !json.Valid([]byte(got)) {
				t.Errorf("JSON(%s) = %s is not valid JSON", tt.in, got)
			}
		})
	}
}

func TestRedactable(t *testing.T) {
	for _, tt := range []struct {
		v    string
		want bool
	}{{"", false}, {"abc", false}, {"abcd", true}, {"1234", false}, {"1234567", false}, {"12345678", true}, {"123a", true}} {
		if got := Redactable(tt.v); got != tt.want {
			t.Errorf("Redactable(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	s := New("first-secret")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 100 {
			s.Add(fmt.Sprintf("secret-%04d", i))
		}
	}()
	for range 100 {
		if strings.Contains(s.String("a first-secret b"), "first-secret") {
			t.Fatal("a value leaked while the set grew")
		}
	}
	<-done
}

func TestHeaderSecrets(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"bearer", "Bearer abc.def", []string{"Bearer abc.def", "abc.def"}},
		{"plain", "tok-123", []string{"tok-123"}},
		{"list", "application/json, text/plain", []string{"application/json, text/plain"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HeaderSecrets(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("HeaderSecrets(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// BenchmarkJSONNoSecret is a results line without a secret, redacted with
// a set of two: the per-record cost of redaction on the collector.
func BenchmarkJSONNoSecret(b *testing.B) {
	s := New("Bearer s3cr3t-token-value", "another-secret-value")
	line := []byte(`{"type":"call","id":123,"seq":122,"tool":"slow_task","t":"2026-12-03T08:29:45.123456Z","sent_us":12,"headers_us":340,"first_progress_us":1200,"response_us":20123,"end_us":20200,"outcome":"ok","status":200,"progress":{"count":20,"max_gap_us":1100,"rate_max":10},"faults":[{"kind":"cancel","at_us":200}]}` + "\n")
	b.ReportAllocs()
	for b.Loop() {
		if out := s.JSON(line); &out[0] != &line[0] {
			b.Fatal("a line without a secret was copied")
		}
	}
}

// TestNoSecretNoAllocation: redacting a line that holds no secret
// allocates nothing.
func TestNoSecretNoAllocation(t *testing.T) {
	s := New("Bearer s3cr3t-token-value", "another-secret-value")
	line := []byte(`{"type":"call","id":1,"tool":"echo","outcome":"ok","error":"a plain message"}`)
	if n := testing.AllocsPerRun(100, func() { s.JSON(line); s.Bytes(line) }); n != 0 {
		t.Errorf("%v allocations per line without a secret, want 0", n)
	}
}
