package redact

import (
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
