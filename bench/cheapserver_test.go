package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"testing"
)

// The cheapest server that answers this client's echo calls as an MCP
// server of 2026-07-28 over Streamable HTTP would, for finding the
// client's own saturation point (BenchmarkRateScale with
// MCPCHAOS_RATE_SERVER=cheap, issue 28 item 5). The built-in target, on
// the official Go SDK, spends 0.7–1 ms of CPU on an echo call, three to
// five times what the client does, so on one core of its own it still
// saturates long before the client on the other. This one parses the
// request's id and method and writes a fixed answer: tens of
// microseconds. It is a load's endpoint, as vegeta's target is, never
// evidence that the client speaks MCP (the interop tests are).

// cheapEnv, set to 1, makes the bench's test binary run the cheap server
// (TestMain) on a free loopback port; it says where on stderr.
const cheapEnv = "MCPCHAOS_BENCH_CHEAP_SERVER"

var cheapListening = regexp.MustCompile(`cheap MCP on (http://\S+)`)

// serveCheap runs the cheap server until killed; it returns the exit code.
func serveCheap() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cheap server:", err)
		return 2
	}
	fmt.Fprintf(os.Stderr, "cheap MCP on http://%s/mcp\n", ln.Addr())
	err = http.Serve(ln, http.HandlerFunc(cheapAnswer))
	fmt.Fprintln(os.Stderr, "cheap server:", err)
	return 1
}

// cheapAnswer answers one POST: a notification with 202, a request with
// its method's fixed result under the request's id.
func cheapAnswer(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if err != nil || json.Unmarshal(body, &req) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if len(req.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	result, ok := cheapResults[req.Method]
	if !ok {
		result = `{}`
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
}

// cheapResults are the fixed results by method.
var cheapResults = map[string]string{
	"server/discover": `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},` +
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"cheap","version":"0"}}}`,
	"tools/list": `{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}],"resultType":"complete"}`,
	"tools/call": `{"content":[{"type":"text","text":"hi"}],"resultType":"complete"}`,
}

// startCheap starts the cheap server (the test binary, pinned to the
// server's CPU under MCPCHAOS_BENCH_PIN=1); it is stopped when the
// benchmark ends.
func startCheap(b *testing.B) *server {
	b.Helper()
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	s, m := startProgram(b, serverCPU, cheapListening, []string{cheapEnv + "=1"}, self)
	s.URL = m[0]
	return s
}
