package scenarios

import (
	"reflect"
	"testing"
)

func TestEnvExpansion(t *testing.T) {
	s := mustParse(t, "x.yaml", lines(
		"target:",
		"  http:",
		"    url: 'http://127.0.0.1:${PORT}/mcp'",
		"    headers: {Authorization: 'Bearer ${TOKEN}', X-Empty: '${EMPTY:-fallback}', X-Unset: '${UNSET:-dflt}', X-Lit: '$${TOKEN} $HOME'}",
		"load: {rate: 5/s, duration: 10s}",
		"calls: [{tool: echo, arguments: {t: '${TOKEN}'}}]",
	))
	h := s.Target.HTTP
	if h.URL != "http://127.0.0.1:8080/mcp" {
		t.Errorf("url = %q", h.URL)
	}
	want := map[string]string{"Authorization": "Bearer s3cret", "X-Empty": "fallback", "X-Unset": "dflt", "X-Lit": "${TOKEN} $HOME"}
	if !reflect.DeepEqual(h.Headers, want) {
		t.Errorf("headers = %v, want %v", h.Headers, want)
	}
	if got := s.Calls[0].Arguments["t"]; got != "${TOKEN}" {
		t.Errorf("arguments are not expanded, got %q", got)
	}

	s = mustParse(t, "x.yaml", lines(
		"target: {stdio: {command: [node, '${TOKEN}.js', '--port=${PORT}'], env: {K: '${TOKEN}', N: 12, E: '${EMPTY}'}, dir: ./srv}}",
		"load: {rate: 5/s, duration: 10s}",
		"calls: [{tool: echo}]",
	))
	st := s.Target.Stdio
	if !reflect.DeepEqual(st.Command, []string{"node", "s3cret.js", "--port=8080"}) {
		t.Errorf("command = %q", st.Command)
	}
	if !reflect.DeepEqual(st.Env, map[string]string{"K": "s3cret", "N": "12", "E": ""}) {
		t.Errorf("env = %q", st.Env)
	}
	if st.Dir != "./srv" || st.Processes != 1 {
		t.Errorf("dir, processes = %q, %d", st.Dir, st.Processes)
	}
}

func TestExpandEnv(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"plain", "plain", ""},
		{"${TOKEN}", "s3cret", ""},
		{"a${TOKEN}b${PORT}c", "as3cretb8080c", ""},
		{"${UNSET:-x y}", "x y", ""},
		{"${EMPTY:-d}", "d", ""},
		{"${EMPTY}", "", ""},
		{"${UNSET:-}", "", ""},
		{"$$${TOKEN}", "$${TOKEN}", ""}, // "$" then the escape "$${"
		{"$${TOKEN}", "${TOKEN}", ""},
		{"$TOKEN", "$TOKEN", ""},
		{"${UNSET}", "", "environment variable UNSET is not set (write ${UNSET:-default} for a default)"},
		{"${}", "", `invalid reference "${}": "" is not a variable name`},
		{"${A-b}", "", `invalid reference "${A-b}": "A-b" is not a variable name`},
		{"x${TOKEN", "", `unterminated reference "${TOKEN" (want ${NAME} or ${NAME:-default})`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := expandEnv(tt.in, testEnv)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("expandEnv(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestProcessEnvironment(t *testing.T) {
	t.Setenv("MCPCHAOS_TEST_URL", "http://example.test/mcp")
	s, err := Parse("x.yaml", []byte(lines(
		"target: {http: {url: '${MCPCHAOS_TEST_URL}'}}",
		"load: {rate: 5/s, duration: 10s}",
		"calls: [{tool: echo}]",
	)))
	if err != nil {
		t.Fatal(err)
	}
	if s.Target.HTTP.URL != "http://example.test/mcp" {
		t.Errorf("url = %q", s.Target.HTTP.URL)
	}
}
