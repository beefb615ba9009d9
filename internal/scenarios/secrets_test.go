package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// env is the environment the secrets tests decode with.
func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

func TestSecretsCollected(t *testing.T) {
	vars := map[string]string{"TOKEN": "env-token-1111", "ARG": "env-arg-2222", "SHORT": "ab"}
	tests := []struct {
		name   string
		target string
		probe  string
		secret []string // each is redacted by s.Secrets
		kept   []string // each is not
	}{
		{"header literal", `http: {url: "http://127.0.0.1:9/mcp", headers: {X-Api: lit-header-3333, Accept: text/plain}}`, "",
			[]string{"lit-header-3333", "text/plain"}, []string{"http://127.0.0.1:9/mcp"}},
		{"header from env, and its credentials alone", `http: {url: "http://127.0.0.1:9/mcp", headers: {Authorization: "Bearer ${TOKEN}"}}`, "",
			[]string{"Bearer env-token-1111", "env-token-1111"}, nil},
		{"URL credentials", `http: {url: "http://me:url-pass-4444@127.0.0.1:9/mcp?access_token=url-tok-5555&page=2"}`, "",
			[]string{"url-pass-4444", "url-tok-5555"}, []string{"page"}},
		{"stdio env and command from env", `stdio: {command: [server, "--key=${ARG}"], env: {K: stdio-env-6666}}`, "",
			[]string{"env-arg-2222", "stdio-env-6666"}, []string{"server"}},
		{"probe URL", `builtin: {}`, `orphans: {probes: [{metric: {url: "http://u:probe-pass-7777@127.0.0.1:9/m?token=probe-tok-8888", name: g}}]}`,
			[]string{"probe-pass-7777", "probe-tok-8888"}, nil},
		{"gateway truth URL", `http: {url: "http://127.0.0.1:9/mcp"}`, `gateway: {truth: ["http://u:truth-pass-9999@127.0.0.1:10"]}`,
			[]string{"truth-pass-9999"}, nil},
		{"short env value", `stdio: {command: [server, "${SHORT}"]}`, "", nil, []string{"ab"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := lines("target:", "  "+tt.target, "load: {rate: 1/s, duration: 1s}", "calls: [{tool: echo}]", tt.probe)
			s, err := parse("s.yaml", []byte(src), env(vars))
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range tt.secret {
				if got := s.Secrets.String("<" + v + ">"); got != "<[redacted]>" {
					t.Errorf("%q is not a secret: %q", v, got)
				}
			}
			for _, v := range tt.kept {
				if got := s.Secrets.String(v); got != v {
					t.Errorf("%q was redacted: %q", v, got)
				}
			}
			echo := string(s.Echo())
			for _, v := range tt.secret {
				if strings.Contains(echo, v) {
					t.Errorf("the echo holds %q: %s", v, echo)
				}
			}
			if strings.Contains(tt.target, "url-pass") && !strings.Contains(s.Target.String(), "me:[redacted]@") {
				t.Errorf("Target.String() = %q, want the password masked", s.Target.String())
			}
		})
	}
}

// The echo masks header and env values by key, even those too short to be
// redacted by value, and keeps the rest of the scenario.
func TestEcho(t *testing.T) {
	src := lines(
		"target:",
		`  http: {url: "http://u:pw@127.0.0.1:9/mcp", headers: {X-A: ab}}`,
		"load: {rate: 1/s, duration: 1s}",
		"calls: [{tool: echo}]",
	)
	s, err := parse("s.yaml", []byte(src), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	echo := string(s.Echo())
	for _, want := range []string{`"X-A":"[redacted]"`, `"URL":"http://u:[redacted]@127.0.0.1:9/mcp"`, `"Tool":"echo"`} {
		if !strings.Contains(echo, want) {
			t.Errorf("echo lacks %s: %s", want, echo)
		}
	}
	if s.Target.HTTP.Headers["X-A"] != "ab" || s.Target.HTTP.URL != "http://u:pw@127.0.0.1:9/mcp" {
		t.Errorf("Echo changed the scenario: %+v", s.Target.HTTP)
	}
}

// Errors never show a secret: a header with a line break is named, not
// quoted, and an error quoting a value from the environment is redacted.
func TestSecretsNotInErrors(t *testing.T) {
	vars := map[string]string{"TOKEN": "env-token-1111\nX-Evil: 1", "URL": "http://me:env-pass-9999@127.0.0.1:99999/mcp"}
	tests := []struct {
		name, target, want, secret string
	}{
		{"header with a line break", `http: {url: "http://127.0.0.1:9/mcp", headers: {Authorization: "Bearer ${TOKEN}"}}`,
			`headers.Authorization: the value contains a line break or NUL`, "env-token-1111"},
		{"literal header with a line break", `http: {url: "http://127.0.0.1:9/mcp", headers: {X-K: "lit-secret-1234\r\n"}}`,
			`headers.X-K: the value`, "lit-secret-1234"},
		{"bad URL from env", `http: {url: "${URL}"}`, "port 99999", "env-pass-9999"},
		{"bad literal URL with a short password", `http: {url: "http://me:pw@127.0.0.1:99999/mcp"}`, "me:[redacted]@", "me:pw@"},
		{"refused gateway truth URL", `http: {url: "http://127.0.0.1:9/mcp"}
gateway: {truth: "http://u:truth-pass-9999@127.0.0.1:10/mcp?token=truth-tok-1010"}`, "invalid truth URL", "truth-pass-9999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := lines("target:", "  "+tt.target, "load: {rate: 1/s, duration: 1s}", "calls: [{tool: echo}]")
			_, err := parse("s.yaml", []byte(src), env(vars))
			var list Errors
			if !errors.As(err, &list) {
				t.Fatalf("err = %v, want Errors", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, tt.secret) {
				t.Errorf("error %q: want it to hold %q and not %q", msg, tt.want, tt.secret)
			}
		})
	}
}
