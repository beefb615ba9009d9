package scenarios

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestHTTPTLSAndTransport(t *testing.T) {
	rest := []string{"load: {rate: 10/1s, duration: 2s}", "calls: [{tool: echo}]"}
	doc := func(target string) string { return lines(append([]string{target}, rest...)...) }
	t.Run("decoded", func(t *testing.T) {
		s, err := parse("x.yaml", []byte(doc(`target: {http: {url: "https://h:8443/mcp", transport: sse, tls: {ca_file: "${TOKEN}/ca.pem", cert_file: c.pem, key_file: k.pem, server_name: mcp.test}}}`)), testEnv)
		if err != nil {
			t.Fatal(err)
		}
		want := &TLS{CAFile: "s3cret/ca.pem", CertFile: "c.pem", KeyFile: "k.pem", ServerName: "mcp.test"}
		if h := s.Target.HTTP; h.Transport != HTTPSSE || !reflect.DeepEqual(h.TLS, want) {
			t.Errorf("got transport %q, tls %+v; want sse, %+v", h.Transport, h.TLS, want)
		}
	})
	t.Run("defaults", func(t *testing.T) {
		s, err := parse("x.yaml", []byte(doc(`target: {http: {url: "https://h/mcp"}}`)), testEnv)
		if err != nil {
			t.Fatal(err)
		}
		if h := s.Target.HTTP; h.Transport != HTTPAuto || h.TLS != nil {
			t.Errorf("got transport %q, tls %+v; want auto, nil", h.Transport, h.TLS)
		}
	})
	tests := []struct{ name, target, want string }{
		{"cert without key", `target: {http: {url: "https://h/mcp", tls: {cert_file: c.pem}}}`,
			`x.yaml:1:56: target.http.tls.cert_file: needs key_file too (the client certificate's private key)`},
		{"key without cert", `target: {http: {url: "https://h/mcp", tls: {key_file: k.pem}}}`,
			`x.yaml:1:55: target.http.tls.key_file: needs cert_file too (the client certificate)`},
		{"skip verify with ca", `target: {http: {url: "https://h/mcp", tls: {ca_file: ca.pem, insecure_skip_verify: true}}}`,
			`x.yaml:1:84: target.http.tls.insecure_skip_verify: excludes ca_file: with insecure_skip_verify no certificate is verified`},
		{"empty file", `target: {http: {url: "https://h/mcp", tls: {ca_file: ""}}}`,
			`x.yaml:1:54: target.http.tls.ca_file: must not be empty`},
		{"tls on http", `target: {http: {url: "http://h/mcp", tls: {}}}`,
			`x.yaml:1:38: target.http.tls: applies only to https:// URLs, and url is "http://h/mcp"`},
		{"unknown tls key", `target: {http: {url: "https://h/mcp", tls: {ca: x}}}`,
			`x.yaml:1:45: target.http.tls: unknown key "ca" (known: ca_file, cert_file, key_file, server_name, insecure_skip_verify)`},
		{"bad transport", `target: {http: {url: "https://h/mcp", transport: ws}}`,
			`x.yaml:1:50: target.http.transport: invalid value "ws" (want one of: auto, streamable, sse)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse("x.yaml", []byte(doc(tt.target)), testEnv)
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
