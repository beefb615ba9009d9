package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// paramSchema marks region (a string), tenant.id (an integer, nested) and
// dry (a boolean) as headers; query is not marked.
const paramSchema = `{"type": "object", "properties": {
	"region": {"type": "string", "x-mcp-header": "Region"},
	"tenant": {"type": "object", "properties": {"id": {"type": "integer", "x-mcp-header": "Tenant-Id"}}},
	"dry": {"type": "boolean", "x-mcp-header": "Dry"},
	"query": {"type": "string"}}}`

// startParamServer serves an SDK server (stateless, 2026-07-28) with one
// tool whose schema marks parameters as headers; the SDK checks the
// Mcp-Param-* headers against the body and refuses a mismatch with -32020.
func startParamServer(t *testing.T) *reqLog {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "params", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "sql", InputSchema: json.RawMessage(paramSchema)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return textResult("ran"), nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true})
	rl := &reqLog{next: h}
	srv := httptest.NewServer(rl)
	t.Cleanup(srv.Close)
	rl.url = srv.URL + "/mcp"
	return rl
}

func TestParamHeadersSDK(t *testing.T) {
	rl := startParamServer(t)
	ph := new(ParamHeaders)
	c, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: rl.url}, ParamHeaders: ph})
	if err != nil {
		t.Fatal(err)
	}
	closeClient(t, c)
	if ph.Err() != nil || len(ph.Invalid()) != 0 {
		t.Fatalf("learning the tools: err %v, invalid %v", ph.Err(), ph.Invalid())
	}
	tests := []struct {
		name, args string
		want       map[string]string // Mcp-Param-* headers sent; "" = absent
	}{
		{"all three", `{"region": "us-west1", "tenant": {"id": 42}, "dry": true, "query": "select"}`,
			map[string]string{"Region": "us-west1", "Tenant-Id": "42", "Dry": "true"}},
		{"absent and null are omitted", `{"region": null, "query": "select"}`,
			map[string]string{"Region": "", "Tenant-Id": "", "Dry": ""}},
		{"non-ASCII is base64", `{"region": "Zürich", "dry": false}`,
			map[string]string{"Region": "=?base64?WsO8cmljaA==?=", "Dry": "false"}},
		{"padded is base64", `{"region": " x ", "tenant": {"id": -7}}`,
			map[string]string{"Region": "=?base64?IHgg?=", "Tenant-Id": "-7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(rl.all())
			rec := newRecorder()
			call, err := c.Start(ctxT(t), CallRequest{Tool: "sql", Arguments: json.RawMessage(tt.args), Observer: rec})
			if err != nil {
				t.Fatal(err)
			}
			waitCall(t, call)
			evs := rec.events()
			if count(evs, EvResult) != 1 {
				t.Fatalf("the SDK server did not accept the call: %s", describe(evs))
			}
			reqs := rl.all()[before:]
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			for name, want := range tt.want {
				if got := reqs[0].header.Get("Mcp-Param-" + name); got != want {
					t.Errorf("Mcp-Param-%s: %q, want %q", name, got, want)
				}
			}
		})
	}

	t.Run("without the headers the SDK refuses", func(t *testing.T) {
		plain, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: rl.url}})
		if err != nil {
			t.Fatal(err)
		}
		closeClient(t, plain)
		rec := newRecorder()
		call, err := plain.Start(ctxT(t), CallRequest{Tool: "sql", Arguments: json.RawMessage(`{"region": "us"}`), Observer: rec})
		if err != nil {
			t.Fatal(err)
		}
		waitCall(t, call)
		errs := ofKind(rec.events(), EvRPCError)
		if len(errs) != 1 || errs[0].Code != CodeHeaderMismatch {
			t.Fatalf("want one -32020 error, got %s", describe(rec.events()))
		}
	})
}

func TestParseParamHeaders(t *testing.T) {
	tests := []struct {
		name, schema string
		want         string // "Header@path" list, or the error's text
	}{
		{"none", `{"type": "object", "properties": {"a": {"type": "string"}}}`, ""},
		{"nested", paramSchema, "Dry@dry Region@region Tenant-Id@tenant/id"},
		{"under items", `{"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "object", "properties": {"h": {"type": "string", "x-mcp-header": "H"}}}}}}`,
			"error: x-mcp-header at /xs/h is not on a property reached through properties alone"},
		{"under oneOf", `{"type": "object", "oneOf": [{"properties": {"h": {"type": "string", "x-mcp-header": "H"}}}]}`,
			"error: x-mcp-header at /h is not on a property reached through properties alone"},
		{"number", `{"type": "object", "properties": {"p": {"type": "number", "x-mcp-header": "P"}}}`,
			"error: x-mcp-header \"P\" is on property /p of type number; only integer, string and boolean may be headers"},
		{"not a token", `{"type": "object", "properties": {"p": {"type": "string", "x-mcp-header": "a b"}}}`,
			"error: x-mcp-header a b of property /p is not an HTTP token"},
		{"duplicate", `{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "X"}, "b": {"type": "string", "x-mcp-header": "x"}}}`,
			"error: x-mcp-header"},
		{"on the root", `{"type": "string", "x-mcp-header": "R"}`,
			"error: x-mcp-header at / is not on a property reached through properties alone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs, err := parseParamHeaders(json.RawMessage(tt.schema))
			var got string
			if err != nil {
				got = "error: " + err.Error()
			} else {
				var parts []string
				for _, h := range hs {
					parts = append(parts, h.header+"@"+strings.Join(h.path, "/"))
				}
				got = strings.Join(parts, " ")
			}
			if !strings.HasPrefix(got, tt.want) || (tt.want == "" && got != "") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestParamHeadersCallTool: CallTool (what a tool probe calls) carries the
// Mcp-Param-* headers too; the SDK server would refuse it otherwise.
func TestParamHeadersCallTool(t *testing.T) {
	rl := startParamServer(t)
	c, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: rl.url}, ParamHeaders: new(ParamHeaders)})
	if err != nil {
		t.Fatal(err)
	}
	closeClient(t, c)
	before := len(rl.all())
	if _, err := c.CallTool(ctxT(t), "sql", json.RawMessage(`{"region": "eu", "tenant": {"id": 7}}`)); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	reqs := rl.all()[before:]
	if len(reqs) != 1 || reqs[0].header.Get("Mcp-Param-Region") != "eu" || reqs[0].header.Get("Mcp-Param-Tenant-Id") != "7" {
		t.Errorf("requests %d; headers %v", len(reqs), reqs)
	}
}
