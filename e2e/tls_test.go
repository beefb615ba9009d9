package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// testCA makes a CA and a server certificate it signs, valid for
// 127.0.0.1 and mcp.test, and writes the CA's certificate to a PEM file.
func testCA(t *testing.T) (serverCert tls.Certificate, caFile string) {
	t.Helper()
	cert, caPEM, err := targetserver.SelfSignedFor("127.0.0.1", "mcp.test")
	if err != nil {
		t.Fatal(err)
	}
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	return cert, caFile
}

// sdkTLSServer serves an official-SDK Streamable HTTP server (stateless,
// one tool: echo) over TLS on 127.0.0.1, offering HTTP/2 and HTTP/1.1.
// It returns the https URL and a count of the calls it answered.
func sdkTLSServer(t *testing.T, cert tls.Certificate) (string, func() int) {
	t.Helper()
	calls := make(chan struct{}, 1000)
	srv := mcp.NewServer(&mcp.Implementation{Name: "e2e-sdk-tls", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "says its text back"},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, any, error) {
			calls <- struct{}{}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
	ts := httptest.NewUnstartedServer(h)
	ts.EnableHTTP2 = true
	ts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the test
	ts.StartTLS()
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", func() int { return len(calls) }
}

// runScenario writes a scenario file and runs `mcpchaos run FILE --quiet`.
func runScenario(t *testing.T, body string) (code int, stdout, stderr string) {
	t.Helper()
	exe := bin.Need(t)
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "run", path, "--quiet")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("mcpchaos run: %v", err)
	}
	return code, out.String(), errOut.String()
}

// TestTLSTarget runs mcpchaos against an official-SDK server behind TLS
// whose certificate a CA made in the test signed: with tls.ca_file the
// run passes; without it, or with a server_name the certificate does not
// hold, the run stops before any load with exit 2 and one line that says
// what is wrong and which option fixes it.
func TestTLSTarget(t *testing.T) {
	cert, caFile := testCA(t)
	url, answered := sdkTLSServer(t, cert)
	scenario := func(tlsBlock string) string {
		return `name: tls
target:
  http:
    url: "` + url + `"
` + tlsBlock + `load: {rate: 10/1s, duration: 1s}
calls:
  - {tool: echo, arguments: {text: hi}, progress: false}
orphans: {grace: 100ms}
checks:
  - calls.ok == 10
`
	}
	t.Run("ca_file", func(t *testing.T) {
		code, out, errOut := runScenario(t, scenario("    tls: {ca_file: \""+caFile+"\"}\n"))
		if code != 0 {
			t.Fatalf("exit status %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		if n := answered(); n < 10 {
			t.Errorf("the server answered %d calls, want at least 10", n)
		}
	})
	tests := []struct {
		name, tls string
		want      []string
	}{
		{"no ca_file", "", []string{"tls handshake", "unknown authority", "mcpchaos serve CA", "tls.ca_file"}},
		{"wrong server_name", "    tls: {ca_file: \"" + caFile + "\", server_name: other.test}\n",
			[]string{"tls handshake", `does not hold the name "other.test"`, "mcp.test, 127.0.0.1", "tls.server_name"}},
		{"missing ca_file", "    tls: {ca_file: \"/nonexistent/ca.pem\"}\n", []string{`ca_file "/nonexistent/ca.pem"`, "no such file"}},
		{"ca_file not PEM", "    tls: {ca_file: \"" + url2file(t) + "\"}\n", []string{"holds no PEM certificate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := answered()
			code, out, errOut := runScenario(t, scenario(tt.tls))
			if code != 2 {
				t.Fatalf("exit status %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr does not say %q:\n%s", w, errOut)
				}
			}
			if strings.Contains(errOut, "goroutine ") || strings.Contains(out, "Calls") {
				t.Errorf("a stack trace or a run:\nstdout:\n%s\nstderr:\n%s", out, errOut)
			}
			if n := answered(); n != before {
				t.Errorf("the server answered %d calls after a failed start", n-before)
			}
		})
	}
}

// url2file writes a file that is not PEM.
func url2file(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "not.pem")
	if err := os.WriteFile(p, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
