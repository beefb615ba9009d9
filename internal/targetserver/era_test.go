package targetserver

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// eraLegacy is the legacy revision TestEras asks for.
const eraLegacy = "2025-11-25"

// eraCase is what one Era setting serves on HTTP.
type eraCase struct {
	era string

	sdkModern string // version an SDK client negotiates by default ("" = cannot connect)
	sdkLegacy string // version an SDK client asking for 2025-11-25 negotiates

	initStatus   int    // raw initialize without MCP-Protocol-Version
	initSession  bool   // ... and whether it mints Mcp-Session-Id
	discover     string // supportedVersions of a 2026 server/discover
	modernStatus int    // 2026 tools/call
	modernCode   any    // its JSON-RPC error code (nil = a result)
	legacyStatus int    // a legacy tools/call without a session
	getStatus    int    // GET without a session
}

// eraCases are the cases of TestEras, one per Era setting.
var eraCases = []eraCase{
	{
		era: EraDual, sdkModern: vocab.FirstModern, sdkLegacy: eraLegacy,
		initStatus: 200, initSession: true,
		discover:     "[2026-07-28 2025-11-25 2025-06-18 2025-03-26 2024-11-05]",
		modernStatus: 200, legacyStatus: 200, getStatus: 400,
	},
	{
		era: Era2026, sdkModern: vocab.FirstModern, sdkLegacy: "",
		initStatus: 200, initSession: false,
		discover:     "[2026-07-28]",
		modernStatus: 200, legacyStatus: 400, getStatus: 405,
	},
	{
		era: Era2025, sdkModern: eraLegacy, sdkLegacy: eraLegacy,
		initStatus: 200, initSession: true,
		discover:     "[2025-11-25 2025-06-18 2025-03-26 2024-11-05]",
		modernStatus: 400, modernCode: float64(-32022), legacyStatus: 200, getStatus: 400,
	},
}

// TestEras checks which protocol eras each Era setting serves on HTTP, with
// the SDK client and with raw requests. (stdio serves both eras on one
// process; TestTools covers it.)
func TestEras(t *testing.T) {
	for _, tt := range eraCases {
		t.Run(tt.era, func(t *testing.T) {
			t.Parallel()
			r := startHTTP(t, Config{Era: tt.era})
			checkEraSDK(t, r.URL, tt)
			checkEraRaw(t, r.URL, tt)
		})
	}
}

// checkEraSDK connects the SDK client to url asking for the default version
// and for the legacy one, and checks what each negotiates.
func checkEraSDK(t *testing.T, url string, tt eraCase) {
	ctx := t.Context()
	for _, c := range []struct{ ask, want string }{{"", tt.sdkModern}, {eraLegacy, tt.sdkLegacy}} {
		client := mcp.NewClient(&mcp.Implementation{Name: "era-test", Version: "0"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: c.ask})
		if c.want == "" {
			if err == nil {
				cs.Close()
				t.Errorf("client asking %q connected, want a failure", c.ask)
			}
			continue
		}
		if err != nil {
			t.Errorf("client asking %q: %v", c.ask, err)
			continue
		}
		if got := cs.InitializeResult().ProtocolVersion; got != c.want {
			t.Errorf("client asking %q negotiated %s, want %s", c.ask, got, c.want)
		}
		if got, _ := callText(t, ctx, cs, &mcp.CallToolParams{Name: ToolEcho, Arguments: map[string]any{"text": "e"}}); got != "e" {
			t.Errorf("client asking %q: echo = %q", c.ask, got)
		}
		if legacySession := c.want < vocab.FirstModern; (cs.ID() != "") != legacySession {
			t.Errorf("client asking %q: session id %q, want one only for a legacy session", c.ask, cs.ID())
		}
		cs.Close()
	}
}

// checkEraRaw sends url raw requests of each era and checks the answers.
func checkEraRaw(t *testing.T, url string, tt eraCase) {
	ctx := t.Context()
	legacyHeaders := map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
	resp := post(t, ctx, http.MethodPost, url, legacyHeaders,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	resp.Body.Close()
	if resp.StatusCode != tt.initStatus || (resp.Header.Get("Mcp-Session-Id") != "") != tt.initSession {
		t.Errorf("initialize: status %d session %q, want %d and session %v",
			resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), tt.initStatus, tt.initSession)
	}

	resp = post(t, ctx, http.MethodPost, url, modernHeaders("server/discover", ""),
		`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	msgs := rpcMessages(t, resp)
	resp.Body.Close()
	if len(msgs) != 1 {
		t.Fatalf("discover: %v", msgs)
	}
	res, _ := msgs[0]["result"].(map[string]any)
	if got := fmt.Sprint(res["supportedVersions"]); got != tt.discover {
		t.Errorf("discover supportedVersions %s, want %s", got, tt.discover)
	}

	resp = post(t, ctx, http.MethodPost, url, modernHeaders("tools/call", ToolEcho), modernCall(3, ToolEcho, map[string]any{"text": "m"}, ""))
	msgs = rpcMessages(t, resp)
	resp.Body.Close()
	var code any
	if len(msgs) == 1 {
		if e, ok := msgs[0]["error"].(map[string]any); ok {
			code = e["code"]
		}
	}
	if resp.StatusCode != tt.modernStatus || code != tt.modernCode {
		t.Errorf("2026 tools/call: status %d code %v, want %d and %v", resp.StatusCode, code, tt.modernStatus, tt.modernCode)
	}

	legacyCall := map[string]string{"MCP-Protocol-Version": eraLegacy}
	for k, v := range legacyHeaders {
		legacyCall[k] = v
	}
	resp = post(t, ctx, http.MethodPost, url, legacyCall,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"l"}}}`)
	resp.Body.Close()
	if resp.StatusCode != tt.legacyStatus {
		t.Errorf("legacy tools/call without a session: status %d, want %d", resp.StatusCode, tt.legacyStatus)
	}

	resp = post(t, ctx, http.MethodGet, url, map[string]string{"Accept": "text/event-stream"}, "")
	resp.Body.Close()
	if resp.StatusCode != tt.getStatus {
		t.Errorf("GET without a session: status %d, want %d", resp.StatusCode, tt.getStatus)
	}
}
