package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// startServeTLS runs `mcpchaos serve` with args in this process and
// returns its MCP URL, read from its status line; it stops with the test.
func startServeTLS(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, append([]string{"--listen", "127.0.0.1:0"}, args...), nil, io.Discard, pw)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	lines := make(chan string, 1)
	go func() {
		var all bytes.Buffer
		buf := make([]byte, 1024)
		for {
			n, err := pr.Read(buf)
			all.Write(buf[:n])
			if strings.Contains(all.String(), "MCP on ") {
				lines <- all.String()
				_, _ = io.Copy(io.Discard, pr)
				return
			}
			if err != nil {
				lines <- all.String()
				return
			}
		}
	}()
	line := testutil.Receive(t, "serve's status line", lines)
	m := regexp.MustCompile(`MCP on (https://\S+/mcp)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no https URL in %q", line)
	}
	return m[1]
}

// TestServeTLS: `mcpchaos serve` over TLS, with a self-signed certificate
// whose CA it writes, or with a given pair; a run that trusts the CA
// speaks HTTP/2 to it (the Target line says so), streams progress, and
// its cancels and disconnects cut their own streams while the other calls
// pass.
func TestServeTLS(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		start func(t *testing.T, dir string) (url, ca string)
	}{
		{"self-signed", func(t *testing.T, dir string) (string, string) {
			ca := filepath.Join(dir, "ca.pem")
			return startServeTLS(t, "--tls-self-signed", ca), ca
		}},
		{"cert and key", func(t *testing.T, dir string) (string, string) {
			cert, caPEM, err := targetserver.SelfSigned()
			if err != nil {
				t.Fatal(err)
			}
			key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
			if err != nil {
				t.Fatal(err)
			}
			ca, certFile, keyFile := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
			for path, b := range map[string][]byte{ca: caPEM,
				certFile: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}),
				keyFile:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key})} {
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			return startServeTLS(t, "--tls-cert", certFile, "--tls-key", keyFile), ca
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			url, ca := tc.start(t, dir)
			path := writeScenario(t, "tls.yaml", `name: tls
target:
  http: {url: "`+url+`", tls: {ca_file: "`+ca+`"}}
load: {rate: 40/1s, duration: 1s}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: slow_task, arguments: {steps: 3, step_ms: 100}, progress: true}
faults:
  - {kind: cancel, probability: 0.25, after: 150ms}
  - {kind: disconnect, probability: 0.25, after_progress: 1, mode: rst}
orphans: {grace: 300ms}
checks:
  - calls.ok > 0
  - calls.cancelled > 0
  - calls.disconnected > 0
  - calls.transport_error == 0
  - progress.notifications > 0
  - cancellation.orphaned == 0
`)
			code, out, errOut := runCLI(t, context.Background(), "run", "-q", path)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if !strings.Contains(out, "Target        http (HTTP/2)   "+url) {
				t.Errorf("the Target line does not say HTTP/2 and %s:\n%s", url, out)
			}
		})
	}
}
