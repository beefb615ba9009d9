package main

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkTLSH2 serves the SDK server statelessly over TLS with HTTP/2 enabled,
// and returns its URL, a CA file that trusts it, and the protocols of the
// requests it got.
func sdkTLSH2(t *testing.T) (url, caFile string, protos func() map[string]int) {
	t.Helper()
	srv := newCmdSDKServer()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})
	var mu sync.Mutex
	seen := map[string]int{}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Proto]++
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	t.Cleanup(ts.Close)
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	return ts.URL + "/mcp", caFile, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range seen {
			out[k] = v
		}
		return out
	}
}

// TestRunHTTP2: a run against an https server that offers h2 speaks
// HTTP/2 and says so on the summary's Target line; disconnect faults cut
// their own calls while the others pass. http2: off runs the same
// scenario over HTTP/1.1.
func TestRunHTTP2(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, http2, want, proto string
	}{
		{"auto", "", "http (HTTP/2)", "HTTP/2.0"},
		{"off", "http2: off, ", "http (HTTP/1.1)", "HTTP/1.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url, ca, protos := sdkTLSH2(t)
			path := writeScenario(t, "h2.yaml", `name: h2
target:
  http: {url: "`+url+`", `+tc.http2+`tls: {ca_file: "`+ca+`"}}
load: {rate: 40/1s, duration: 1s}
calls:
  - {tool: long_job, arguments: {seconds: 0.3, steps: 3}, progress: true}
faults:
  - {kind: disconnect, probability: 0.5, after_progress: 1, mode: rst}
orphans: {grace: 100ms}
checks:
  - calls.ok > 0
  - calls.disconnected > 0
  - calls.transport_error == 0
`)
			code, out, errOut := runCLI(t, context.Background(), "run", "-q", path)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if !strings.Contains(out, "Target        "+tc.want+"   ") {
				t.Errorf("the Target line does not say %q:\n%s", tc.want, out)
			}
			if p := protos(); len(p) != 1 || p[tc.proto] == 0 {
				t.Errorf("the server saw %v, want %s only", p, tc.proto)
			}
		})
	}
}
