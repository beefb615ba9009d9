package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// TestHTTP2AndProtocol2024: target.http.http2 and protocol 2024-11-05.
func TestHTTP2AndProtocol2024(t *testing.T) {
	rest := []string{"load: {rate: 10/1s, duration: 2s}", "calls: [{tool: echo}]"}
	decoded := []struct {
		name, protocol, target string
		http2, transport       string
	}{
		{"http2 default", "", `target: {http: {url: "https://h/mcp"}}`, HTTP2Auto, HTTPAuto},
		{"http2 off", "", `target: {http: {url: "https://h/mcp", http2: off}}`, HTTP2Off, HTTPAuto},
		{"2024-11-05 makes auto sse", "protocol: 2024-11-05", `target: {http: {url: "http://h/sse"}}`, HTTP2Auto, HTTPSSE},
		{"2024-11-05 with sse", "protocol: 2024-11-05", `target: {http: {url: "http://h/sse", transport: sse}}`, HTTP2Auto, HTTPSSE},
	}
	for _, tt := range decoded {
		t.Run(tt.name, func(t *testing.T) {
			s, err := parse("x.yaml", []byte(lines(append([]string{tt.target, tt.protocol}, rest...)...)), testEnv)
			if err != nil {
				t.Fatal(err)
			}
			if h := s.Target.HTTP; h.HTTP2 != tt.http2 || h.Transport != tt.transport {
				t.Errorf("http2 %q, transport %q; want %q, %q", h.HTTP2, h.Transport, tt.http2, tt.transport)
			}
		})
	}
	refused := []struct{ name, doc, want string }{
		{"bad http2", `target: {http: {url: "https://h/mcp", http2: on}}`,
			`x.yaml:1:46: target.http.http2: invalid value "on" (want one of: auto, off)`},
		{"2024-11-05 with streamable", "protocol: 2024-11-05\n" + `target: {http: {url: "http://h/mcp", transport: streamable}}`,
			`x.yaml:2:49: target.http.transport: protocol 2024-11-05 is the HTTP+SSE transport; use transport: sse (or auto), or a 2025 or 2026 protocol with streamable`},
		{"2024-11-05 on stdio", "protocol: 2024-11-05\n" + `target: {stdio: {command: [srv]}}`,
			`x.yaml:1:11: protocol: 2024-11-05 is the HTTP+SSE transport, for http targets; a stdio or builtin server that speaks 2024-11-05 is found with protocol: auto`},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse("x.yaml", []byte(lines(append([]string{tt.doc}, rest...)...)), testEnv)
			var list Errors
			if !errors.As(err, &list) {
				t.Fatalf("error %v is not Errors", err)
			}
			var got []string
			for _, e := range list {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != tt.want {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), tt.want)
			}
		})
	}
}
