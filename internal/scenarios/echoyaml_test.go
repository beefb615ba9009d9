package scenarios

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goFieldKey matches a mapping key in YAML written as a Go field name
// (Orphans:, FailOnViolation:).
var goFieldKey = regexp.MustCompile(`(?m)^\s*(- )?[A-Z][A-Za-z0-9]*:`)

// echoSources are scenarios for the mappings the examples lack: a stdio
// target, TLS, quiet windows.
var echoSources = map[string]string{
	"stdio and windows": lines("target: {stdio: {command: [node, server.js], env: {MY_VAR: v}, dir: /tmp, processes: 2}}",
		"load: {rate: 2/s, duration: 1s}", "calls: [{tool: echo}]",
		"orphans: {probes: [{name: cpu, process: {}}], windows: {every: 10s, for: 2s}}"),
	"zeros that are no absence": lines("seed: 0", "target: {builtin: {}}", "load: {rate: 2/s, duration: 1s, graceful_stop: 1ms}",
		"calls: [{tool: echo, weight: 1}]", "faults: [{kind: cancel, probability: 0, after: 0s}]",
		"orphans: {grace: 1ms}", "throttling: {retry: {max: 0}}"),
	"stdio with ids": lines("target: {stdio: {command: [srv]}}", "load: {rate: 2/s, duration: 1s, ids: {mode: shuffled}}", "calls: [{tool: echo}]"),
	"tls": lines(`target: {http: {url: "https://h:8443/mcp", tls: {ca_file: ca.pem, cert_file: c.pem, key_file: k.pem, server_name: mcp.test}}}`,
		"load: {rate: 2/s, duration: 1s}", "calls: [{tool: echo}]"),
}

// TestEchoYAMLNamesEveryField: every field of the example scenarios, of
// the full test scenario and of echoSources is written with its file key;
// none is left to the snake-case fallback, and no Go field name shows.
func TestEchoYAMLNamesEveryField(t *testing.T) {
	var files []string
	for _, glob := range []string{"../../examples/*.yaml", "../../examples/gateways/*.yaml", "testdata/full.yaml"} {
		m, err := filepath.Glob(glob)
		if err != nil || len(m) == 0 {
			t.Fatalf("no scenario in %s: %v", glob, err)
		}
		files = append(files, m...)
	}
	scenarios := map[string]func() (*Scenario, error){}
	for _, f := range files {
		scenarios[f] = func() (*Scenario, error) { return Load(f) }
	}
	for name, src := range echoSources {
		scenarios[name] = func() (*Scenario, error) { return Parse(name+".yaml", []byte(src)) }
	}
	for name, load := range scenarios {
		t.Run(name, func(t *testing.T) {
			s, err := load()
			if err != nil {
				t.Fatal(err)
			}
			out, unnamed, err := echoYAML(s.Echo())
			if err != nil {
				t.Fatal(err)
			}
			if len(unnamed) > 0 {
				t.Errorf("fields no file key names: %q", unnamed)
			}
			if m := goFieldKey.FindAllString(string(out), -1); len(m) > 0 {
				t.Errorf("Go field names as keys: %q\n%s", m, out)
			}
		})
	}
}

func TestEchoYAML(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		want      []string // each in the YAML
		wantNot   []string // none in it
		wantFirst string   // its first line
	}{
		{"keys as written", lines("name: keys", "target: {builtin: {stop_delay: 250ms, propagate_cancel: false}}", "load: {rate: 2/s, duration: 1s}",
			"calls: [{tool: slow_task, arguments: {step_ms: 5, Mixed_Case: 1}}]", "orphans: {grace: 400ms}", "checks: [\"p99(call) < 2s\"]", "fail_on_violation: false"),
			[]string{"orphans:\n  grace: 400ms\n", "stop_delay: 250ms\n", "propagate_cancel: false\n", "max_in_flight:", "    arguments:\n      Mixed_Case: 1\n      step_ms: 5\n",
				"checks:\n  - p99(call) < 2s\n", "fail_on_violation: false\n"},
			[]string{"Orphans", "Grace", "Pos", "NoPropagateCancel", "Raw", "has_roots"}, "# read from \"s.yaml\""},
		{"a fault's own keys beside its kind", lines("target: {builtin: {}}", "load: {rate: 2/s, duration: 1s}", "calls: [{tool: echo}]",
			"faults: [{kind: disconnect, probability: 0.5, after: 1s, mode: rst}]"),
			[]string{"  - kind: disconnect\n    probability: 0.5\n", "    mode: rst\n"}, []string{"params", "Params"}, ""},
		{"secrets stay masked", lines("target: {http: {url: \"http://me:pass-4444@127.0.0.1:9/mcp\", headers: {Authorization: \"Bearer ${TOKEN}\"}}}",
			"load: {rate: 2/s, duration: 1s}", "calls: [{tool: echo}]"),
			[]string{"headers:\n      Authorization: \"[redacted]\"\n"}, []string{"pass-4444", "env-token-1111"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := parse("s.yaml", []byte(tt.src), env(map[string]string{"TOKEN": "env-token-1111"}))
			if err != nil {
				t.Fatal(err)
			}
			b, err := EchoYAML(s.Echo())
			if err != nil {
				t.Fatal(err)
			}
			out := string(b)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in\n%s", w, out)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(out, w) {
					t.Errorf("%q in\n%s", w, out)
				}
			}
			if first, _, _ := strings.Cut(out, "\n"); tt.wantFirst != "" && first != tt.wantFirst {
				t.Errorf("first line %q, want %q", first, tt.wantFirst)
			}
		})
	}
}

// TestEchoYAMLOlderFields: a config from another version, whose fields no
// table names, keeps them in snake case; a config that is not an object
// is an error.
func TestEchoYAMLOlderFields(t *testing.T) {
	out, unnamed, err := echoYAML([]byte(`{"Name":"old","MaxRPCRate":3,"Orphans":{"Grace":"1s","OldKnob":true},"Gone":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "name: old\nmax_rpc_rate: 3\norphans:\n  grace: 1s\n  old_knob: true\n"; string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if want := []string{"MaxRPCRate", "orphans.OldKnob"}; strings.Join(unnamed, ",") != strings.Join(want, ",") {
		t.Errorf("unnamed %q, want %q", unnamed, want)
	}
	for _, bad := range []string{`[1]`, `{"Name":`, ``} {
		if _, err := EchoYAML([]byte(bad)); err == nil {
			t.Errorf("EchoYAML(%q) = nil error", bad)
		}
	}
}

// TestEchoYAMLReadsBack: the YAML an example scenario (and the full test
// scenario, and echoSources) is echoed as reads back without an error,
// and as the same scenario, whose echo is the same YAML (the built-in
// target's knobs are written as serve reads them, a default by its name):
// a reader can run what the report shows.
func TestEchoYAMLReadsBack(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example scenario: %v", err)
	}
	gateways, _ := filepath.Glob("../../examples/gateways/*.yaml")
	files = append(append(files, gateways...), "testdata/full.yaml")
	srcs := map[string]func() (*Scenario, error){}
	for _, f := range files {
		srcs[f] = func() (*Scenario, error) { return Load(f) }
	}
	for name, src := range echoSources {
		srcs[name] = func() (*Scenario, error) { return Parse(name+".yaml", []byte(src)) }
	}
	body := func(y []byte) string { // the YAML without its "# read from" line
		_, rest, _ := strings.Cut(string(y), "\n")
		return rest
	}
	for name, load := range srcs {
		t.Run(name, func(t *testing.T) {
			s, err := load()
			if err != nil {
				t.Fatal(err)
			}
			out, err := EchoYAML(s.Echo())
			if err != nil {
				t.Fatal(err)
			}
			again, err := Parse("echo.yaml", out)
			if err != nil {
				t.Fatalf("the echo does not read back: %v\n%s", err, out)
			}
			out2, err := EchoYAML(again.Echo())
			if err != nil {
				t.Fatal(err)
			}
			if body(out) != body(out2) {
				t.Errorf("the echo reads back as another scenario:\n%s\nechoed again:\n%s", out, out2)
			}
		})
	}
}
