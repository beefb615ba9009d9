package redact

import (
	"fmt"
	"slices"
	"testing"
)

func TestURL(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		secrets []string
	}{
		{"plain", "http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/mcp", nil},
		{"user and password", "https://me:p%40ss@h/mcp", "https://me:[redacted]@h/mcp", []string{"p%40ss", "p@ss"}},
		{"user alone is a token", "https://ghp_abc@h/", "https://[redacted]@h/", []string{"ghp_abc"}},
		{"secret query", "http://h/mcp?access_token=T1&x=1&API-Key=T2", "http://h/mcp?access_token=[redacted]&x=1&API-Key=[redacted]", []string{"T1", "T2"}},
		{"sig and fragment", "http://h/?sig=abc#frag", "http://h/?sig=[redacted]#frag", []string{"abc"}},
		{"empty value", "http://h/?token=&a=b", "http://h/?token=&a=b", nil},
		{"does not parse", "http://u:pw@h:99999/%zz?token=t", "http://u:[redacted]@h:99999/%zz?token=[redacted]", []string{"pw", "t"}},
		{"at in path", "http://h/a@b", "http://h/a@b", nil},
		{"not a URL", "just text", "just text", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := URL(tt.in); got != tt.want {
				t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := URLSecrets(tt.in); !slices.Equal(got, tt.secrets) {
				t.Errorf("URLSecrets(%q) = %q, want %q", tt.in, got, tt.secrets)
			}
		})
	}
}

func TestSecretName(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{{"token", true}, {"access_token", true}, {"apikey", true}, {"X-Api-Key", true}, {"password", true},
		{"signature", true}, {"Authorization", true}, {"page", false}, {"q", false}, {"limit", false}} {
		if got := SecretName(tt.name); got != tt.want {
			t.Errorf("SecretName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A known URL is masked whole, even when its password is too short to be
// value-redacted.
func TestAddURL(t *testing.T) {
	const raw = "http://me:pw@127.0.0.1:9/mcp?token=abcdef&page=2"
	s := New()
	s.AddURL(raw, "http://127.0.0.1/plain")
	tests := []struct{ name, in, want string }{
		{"whole", "connect to " + raw + ": refused", "connect to http://me:[redacted]@127.0.0.1:9/mcp?token=[redacted]&page=2: refused"},
		{"quoted", fmt.Sprintf("url %q", raw), `url "http://me:[redacted]@127.0.0.1:9/mcp?token=[redacted]&page=2"`},
		{"token alone", "token abcdef", "token [redacted]"},
		{"plain URL untouched", "http://127.0.0.1/plain", "http://127.0.0.1/plain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	if got := string(s.JSON([]byte(`{"t":"` + raw + `"}`))); got != `{"t":"http://me:[redacted]@127.0.0.1:9/mcp?token=[redacted]\u0026page=2"}` {
		t.Errorf("JSON: %s", got)
	}
	o := New()
	o.Merge(s)
	if got := o.String(raw); got != URL(raw) {
		t.Errorf("after Merge: %q", got)
	}
}
