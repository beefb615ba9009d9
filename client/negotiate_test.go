package client

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// negotiateCase is a scripted answer to server/discover (and initialize),
// or a forced era, and what Dial must settle on.
type negotiateCase struct {
	name     string
	force    Era
	discover func(w http.ResponseWriter, req fakeReq) // nil: never asked
	offer    string                                   // initialize's answer; "" echoes the request
	wantEra  Era
	wantInit string // protocolVersion initialize must carry; "" = no initialize
	wantErr  string
}

// negotiateLegacyOnly is the data of a -32022 error listing only versions
// before 2026.
const negotiateLegacyOnly = `{"supported":["2025-06-18","2025-03-26"],"requested":"2026-07-28"}`

// discoverResult answers server/discover with a DiscoverResult listing
// versions (JSON).
func discoverResult(versions string) func(w http.ResponseWriter, req fakeReq) {
	return func(w http.ResponseWriter, req fakeReq) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"supportedVersions":`+versions+`,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"disc","version":"2"}}}}`)
	}
}

// discoverError answers with a JSON-RPC error of code, with data (JSON)
// unless it is "", under HTTP status.
func discoverError(status, code int, data string) func(w http.ResponseWriter, req fakeReq) {
	return func(w http.ResponseWriter, req fakeReq) {
		body := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":` + itoa(int64(code)) + `,"message":"no"`
		if data != "" {
			body += `,"data":` + data
		}
		writeJSON(w, status, body+`}}`)
	}
}

// plainAnswer answers with a text/plain body under HTTP status.
func plainAnswer(status int, body string) func(w http.ResponseWriter, req fakeReq) {
	return func(w http.ResponseWriter, req fakeReq) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

var negotiateCases = []negotiateCase{
	{name: "DiscoverResult with 2026", discover: discoverResult(`["2025-11-25","2026-07-28"]`), wantEra: Era20260728},
	{name: "DiscoverResult without versions", discover: discoverResult(`[]`), wantEra: Era20260728},
	{name: "DiscoverResult with only legacy versions", discover: discoverResult(`["2025-06-18"]`), wantEra: Era20250618, wantInit: "2025-06-18"},
	{name: "DiscoverResult with nothing we speak", discover: discoverResult(`["2099-01-01"]`), wantErr: "none of which mcpchaos speaks"},
	{name: "result that is not a DiscoverResult", discover: func(w http.ResponseWriter, req fakeReq) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"supportedVersions":"2026-07-28"}}`)
	}, wantEra: Era20251125, wantInit: "2025-11-25"},
	{name: "-32022 listing only legacy versions", discover: discoverError(400, -32022, negotiateLegacyOnly), wantEra: Era20250618, wantInit: "2025-06-18"},
	{name: "-32022 listing 2026", discover: discoverError(400, -32022, `{"supported":["2026-07-28"]}`), wantEra: Era20260728},
	{name: "-32022 without data", discover: discoverError(400, -32022, ""), wantEra: Era20251125, wantInit: "2025-11-25"},
	{name: "-32020 header mismatch", discover: discoverError(400, -32020, ""), wantEra: Era20260728},
	{name: "-32021 missing capability", discover: discoverError(400, -32021, ""), wantEra: Era20260728},
	{name: "404 with -32601", discover: discoverError(404, -32601, ""), wantEra: Era20260728},
	{name: "200 with -32601", discover: discoverError(200, -32601, ""), wantEra: Era20251125, wantInit: "2025-11-25"},
	{name: "400 with -32602", discover: discoverError(400, -32602, ""), wantEra: Era20251125, wantInit: "2025-11-25"},
	{name: "400 with a plain-text body", discover: plainAnswer(400, "Bad Request: Mcp-Session-Id header is required"), wantEra: Era20251125, wantInit: "2025-11-25"},
	{name: "400 with an empty body", discover: plainAnswer(400, ""), wantEra: Era20251125, wantInit: "2025-11-25"},
	{name: "404 plain", discover: plainAnswer(404, "404 page not found"), wantEra: Era20251125, wantInit: "2025-11-25"},
	{name: "SSE answer", discover: func(w http.ResponseWriter, req fakeReq) {
		writeSSE(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"supportedVersions":["2026-07-28"]}}`)
	}, wantEra: Era20260728},
	{name: "initialize offers an older version", discover: plainAnswer(400, ""), offer: "2025-03-26", wantEra: Era20250326, wantInit: "2025-11-25"},
	{name: "initialize offers a version we do not speak", discover: plainAnswer(400, ""), offer: "2023-01-01", wantInit: "2025-11-25", wantErr: `server offered protocol version "2023-01-01", which mcpchaos does not speak (it speaks 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)`},
	{name: "forced 2025-06-18", force: Era20250618, wantEra: Era20250618, wantInit: "2025-06-18"},
	{name: "forced 2026 against a legacy server", force: Era20260728, discover: plainAnswer(400, ""), wantEra: Era20260728},
}

// TestNegotiateHTTP drives era detection with scripted answers to
// server/discover and initialize.
func TestNegotiateHTTP(t *testing.T) {
	t.Parallel()
	for _, tc := range negotiateCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startNegotiateFake(t, tc)
			c, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: f.URL + "/mcp"}, Protocol: tc.force})
			inits, initialized := initRequests(t, f)
			switch {
			case tc.wantInit == "" && len(inits) != 0:
				t.Errorf("initialize sent (%v), want none", inits)
			case tc.wantInit != "" && (len(inits) != 1 || inits[0] != tc.wantInit):
				t.Errorf("initialize sent with %v, want once with %s", inits, tc.wantInit)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Dial error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Dial: %v", err)
			}
			closeClient(t, c)
			if c.Era() != tc.wantEra {
				t.Errorf("Era() = %s, want %s", c.Era(), tc.wantEra)
			}
			if !tc.wantEra.Modern() && !initialized {
				t.Error("no notifications/initialized after initialize")
			}
			if tc.wantInit != "" && c.Server().Name != "init" || tc.wantInit == "" && tc.name == "DiscoverResult with 2026" && c.Server().Name != "disc" {
				t.Errorf("Server() = %+v", c.Server())
			}
		})
	}
}

// startNegotiateFake starts a server that answers server/discover as tc
// scripts it and initialize with tc's offer.
func startNegotiateFake(t *testing.T, tc negotiateCase) *fake {
	t.Helper()
	return startFake(t, func(w http.ResponseWriter, req fakeReq) bool {
		switch req.Method {
		case vocab.MethodDiscover:
			if tc.discover == nil {
				t.Error("server/discover sent, but the era was forced to a legacy one")
				return false
			}
			tc.discover(w, req)
		case vocab.MethodInitialize:
			offer := tc.offer
			if offer == "" {
				offer = protocolVersionOf(req.Body)
			}
			w.Header().Set("Mcp-Session-Id", "s-1")
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"protocolVersion":"`+offer+`","capabilities":{},"serverInfo":{"name":"init","version":"1"}}}`)
		case vocab.MethodInitialized:
			w.WriteHeader(http.StatusAccepted)
		default:
			if req.HTTPMethod == http.MethodDelete {
				w.WriteHeader(200)
				return true
			}
			return false
		}
		return true
	})
}

// initRequests checks the headers of the initialize requests and the
// notifications/initialized the fake got, and returns the protocol versions
// the initialize requests asked for and whether initialized came.
func initRequests(t *testing.T, f *fake) (inits []string, initialized bool) {
	t.Helper()
	for _, r := range f.requests() {
		switch r.Method {
		case vocab.MethodInitialize:
			inits = append(inits, protocolVersionOf(r.Body))
			if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
				t.Errorf("initialize carried MCP-Protocol-Version %q", v)
			}
		case vocab.MethodInitialized:
			initialized = true
			if sid := r.Header.Get("Mcp-Session-Id"); sid != "s-1" {
				t.Errorf("notifications/initialized carried session %q", sid)
			}
		}
	}
	return inits, initialized
}

// protocolVersionOf is the params.protocolVersion of an initialize request.
func protocolVersionOf(body []byte) string {
	var p struct {
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &p)
	return p.Params.ProtocolVersion
}

func TestNegotiateConnectionRefused(t *testing.T) {
	t.Parallel()
	// A bound socket that does not listen: connections to it are refused, and
	// no other test can take its port meanwhile.
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", itoa(int64(sa.(*syscall.SockaddrInet4).Port)))
	for _, force := range []Era{"", Era20260728, Era20251125} {
		_, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: "http://" + addr + "/mcp"}, Protocol: force})
		if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), "connect to http://"+addr+"/mcp") {
			t.Errorf("protocol %q: Dial error = %v, want connection refused naming the URL", force, err)
		}
	}
}

// TestNegotiateStdioSilent: a legacy stdio server that never answers
// server/discover is detected as legacy once the probe times out, and the
// initialize that follows still gets its own time.
func TestNegotiateStdioSilent(t *testing.T) {
	t.Parallel()
	// After the probe times out the client writes notifications/cancelled for
	// it and then initialize; the two writes race, so accept either order.
	script := `read discover; read a; read b
case "$a$b" in *notifications/cancelled*initialize*|*initialize*notifications/cancelled*) ;; *) echo "no cancel: $a $b" >&2;; esac
printf '{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"sh","version":"1"}}}\n'
read initialized; echo "got: $initialized" >&2
cat >/dev/null`
	// The initialize gets the same bound: 5 s, which a starved shell
	// answering two lines keeps (the probe's silence costs as much).
	const probe = 5 * time.Second
	start := time.Now()
	c, err := Dial(ctxT(t), Config{Stdio: &StdioConfig{Command: []string{"sh", "-c", script}}, ProbeTimeout: probe})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	closeClient(t, c)
	if c.Era() != Era20250618 || c.Server().Name != "sh" {
		t.Errorf("era %s server %+v", c.Era(), c.Server())
	}
	if d := time.Since(start); d < probe {
		t.Errorf("Dial took %v, less than the probe timeout", d)
	}
	testutil.Eventually(t, "initialized", func() bool {
		return strings.Contains(string(c.Stderr()), `got: {"jsonrpc":"2.0","method":"notifications/initialized"}`)
	})
	if strings.Contains(string(c.Stderr()), "no cancel") {
		t.Errorf("the timed-out probe was not cancelled: %s", c.Stderr())
	}
}

func TestParseProtocol(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Era{"": "", "auto": "", "2026-07-28": Era20260728, "2025-11-25": Era20251125, "2025-06-18": Era20250618} {
		if got, err := ParseProtocol(in); err != nil || got != want {
			t.Errorf("ParseProtocol(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"2025-03-26", "latest", "2026-07-28 "} {
		if _, err := ParseProtocol(in); err == nil {
			t.Errorf("ParseProtocol(%q): want an error", in)
		}
	}
	if !Era20260728.Modern() || Era20251125.Modern() || Era("").Modern() {
		t.Error("Era.Modern is wrong")
	}
}

func TestDialConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"neither", Config{}, "exactly one"},
		{"both", Config{HTTP: &HTTPConfig{URL: "http://x"}, Stdio: &StdioConfig{Command: []string{"true"}}}, "exactly one"},
		{"bad scheme", Config{HTTP: &HTTPConfig{URL: "ftp://x/mcp"}}, "scheme"},
		{"no host", Config{HTTP: &HTTPConfig{URL: "http:///mcp"}}, "no host"},
		{"header injection", Config{HTTP: &HTTPConfig{URL: "http://x/", Header: map[string]string{"X-A": "1\r\nEvil: 2"}}}, "invalid header"},
		{"empty command", Config{Stdio: &StdioConfig{}}, "empty command"},
		{"missing binary", Config{Stdio: &StdioConfig{Command: []string{"/nonexistent/mcp-server"}}}, "start"},
	} {
		if _, err := Dial(ctxT(t), tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Dial error = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestLateDiscoverAnswer: a starved stdio server that reads our
// server/discover only after the probe gave up answers it late, takes the
// session for a 2026 one and refuses the initialize that followed as a
// duplicate (the official Go SDK does). The client asks server/discover
// again and settles on 2026-07-28 instead of failing to connect. The
// helper holds the discover until the initialize has come, so the order is
// the starved one on any machine.
func TestLateDiscoverAnswer(t *testing.T) {
	cfg := Config{Stdio: helperStdio("slowdiscover"), ProbeTimeout: 4 * time.Second}
	c, err := Dial(ctxT(t), cfg)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	closeClient(t, c)
	if c.Era() != Era20260728 {
		t.Fatalf("era %s, want 2026-07-28", c.Era())
	}
	res, err := c.CallTool(ctxT(t), "echo", json.RawMessage(`{"text":"after a late discover"}`))
	if err != nil || !strings.Contains(string(res.Raw), "after a late discover") {
		t.Fatalf("call after the late discover: %s, %v", res.Raw, err)
	}
}
