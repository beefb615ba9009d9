package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestParseProxy(t *testing.T) {
	const head = "listen: 127.0.0.1:8090\nupstream: {http: {url: \"http://127.0.0.1:8080/mcp\"}}\n"
	tests := []struct {
		name, file string
		want       string // an error's text, "" for none
	}{
		{"minimal", head, ""},
		{"everything", "name: p\nseed: 9\n" + head + "hold: 30s\nfaults:\n  - {kind: throttle, probability: 0.5, tools: [echo], status: 503}\n", ""},
		{"unknown key", head + "holdd: 1s\n", `p.yaml:3:1: unknown key "holdd"`},
		{"missing listen", "upstream: {http: {url: \"http://127.0.0.1:8080/mcp\"}}\n", `missing required key "listen"`},
		{"listen not loopback", "listen: 0.0.0.0:8090\nupstream: {http: {url: \"http://127.0.0.1:8080/mcp\"}}\n", `p.yaml:1:9: listen: listen address "0.0.0.0:8090": want a loopback host`},
		{"listen without a port", "listen: 127.0.0.1\nupstream: {http: {url: \"http://127.0.0.1:8080/mcp\"}}\n", `listen address "127.0.0.1"`},
		{"upstream both", "listen: 127.0.0.1:1\nupstream: {stdio: {command: [x]}, http: {url: \"http://h/mcp\"}}\n", `want exactly one of http or stdio`},
		{"upstream stdio processes", "listen: 127.0.0.1:1\nupstream: {stdio: {command: [x], processes: 2}}\n", `unknown key "processes"`},
		{"upstream stdio empty command", "listen: 127.0.0.1:1\nupstream: {stdio: {command: []}}\n", `command`},
		{"upstream key of a scenario only", "listen: 127.0.0.1:1\nupstream: {http: {url: \"http://h/mcp\", pid: 3}}\n", `unknown key "pid"`},
		{"upstream bad url", "listen: 127.0.0.1:1\nupstream: {http: {url: \"ftp://h/mcp\"}}\n", `ftp`},
		{"upstream transport unknown", "listen: 127.0.0.1:1\nupstream: {http: {url: \"http://h/sse\", transport: websocket}}\n", `p.yaml:2:51: upstream.http.transport: invalid value "websocket" (want one of: auto, streamable, sse)`},
		{"hold zero", head + "hold: 0s\n", `must be positive`},
		{"clients identity header", head + "clients: {identity_header: X-Client-Id}\n", ""},
		{"clients identity header invalid", head + "clients: {identity_header: \"X Client\"}\n", `p.yaml:3:28: clients.identity_header: invalid header name "X Client"`},
		{"clients identity header not a string", head + "clients: {identity_header: [a]}\n", `p.yaml:3:28: clients.identity_header`},
		{"clients unknown key", head + "clients: {identity: X-Client-Id}\n", `p.yaml:3:11: clients: unknown key "identity" (known: identity_header)`},
		{"fault probability", head + "faults:\n  - {kind: drop_response, probability: 2}\n", `p.yaml:4:40: faults[0].probability: probability 2 is outside 0..1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParseProxy("p.yaml", []byte(tc.file))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("ParseProxy: %v", err)
				}
				if p.Upstream == nil || p.Upstream.URL != "http://127.0.0.1:8080/mcp" || p.Listen != "127.0.0.1:8090" {
					t.Fatalf("got %+v", p)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestParseProxyStdio(t *testing.T) {
	p, err := ParseProxy("p.yaml", []byte("listen: 127.0.0.1:1\nupstream: {stdio: {command: [mcpchaos, serve, --stdio], env: {A: b}}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Upstream != nil || p.Stdio == nil || len(p.Stdio.Command) != 3 || p.Stdio.Env["A"] != "b" {
		t.Fatalf("got %+v, stdio %+v", p, p.Stdio)
	}
}

func TestParseProxySSE(t *testing.T) {
	tests := []struct{ name, http, want string }{
		{name: "sse", http: `{url: "http://127.0.0.1:8080/sse", transport: sse}`, want: HTTPSSE},
		{name: "default", http: `{url: "http://127.0.0.1:8080/mcp"}`, want: HTTPAuto},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParseProxy("p.yaml", []byte("listen: 127.0.0.1:1\nupstream: {http: "+tc.http+"}\n"))
			if err != nil {
				t.Fatal(err)
			}
			if p.Upstream.Transport != tc.want {
				t.Errorf("transport: got %q, want %q", p.Upstream.Transport, tc.want)
			}
		})
	}
}

func TestParseProxyDefaults(t *testing.T) {
	p, err := ParseProxy("dir/front.yaml", []byte("listen: localhost:1\nupstream: {http: {url: \"http://127.0.0.1:8080/mcp\"}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "front" || p.Seed != DefaultSeed || p.Hold.Std() != 5*time.Minute || len(p.Faults) != 0 {
		t.Fatalf("defaults: got %+v", p)
	}
}

// FuzzParseProxy feeds arbitrary bytes to the proxy file's decoder: it
// must never panic and must return either a proxy file or an error,
// never both or neither.
func FuzzParseProxy(f *testing.F) {
	f.Add([]byte("listen: 127.0.0.1:8090\nupstream: {http: {url: \"http://127.0.0.1:8080/mcp\"}}\nfaults: [{kind: throttle, status: 503}]\n"))
	f.Add([]byte("listen: &a 127.0.0.1:1\nupstream: *a\n"))
	f.Add([]byte("\xef\xbb\xbflisten: [[[[[[[[\n"))
	for _, src := range fuzzSeeds {
		f.Add([]byte(src))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProxy("fuzz.yaml", data)
		if (p == nil) == (err == nil) {
			t.Fatalf("proxy file %v and error %v", p, err)
		}
		if err != nil && err.Error() == "" {
			t.Fatal("empty error message")
		}
	})
}
