package probes

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/client"
)

// fakeCaller answers every call with a fixed raw result or error, and
// remembers what it was asked.
type fakeCaller struct {
	raw      string
	err      error
	gotTool  string
	gotArgs  json.RawMessage
	gotCalls int
}

func (f *fakeCaller) CallTool(ctx context.Context, tool string, args json.RawMessage) (client.ToolResult, error) {
	f.gotTool, f.gotArgs = tool, args
	f.gotCalls++
	if err := ctx.Err(); err != nil {
		return client.ToolResult{}, err
	}
	if f.err != nil {
		return client.ToolResult{}, f.err
	}
	return client.ToolResult{Raw: json.RawMessage(f.raw)}, nil
}

var _ ToolCaller = (*client.Client)(nil)

func TestToolSample(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		raw     string
		callErr error
		pointer string
		want    float64
		wantErr string
	}{
		{name: "structured content", raw: `{"content":[{"type":"text","text":"{\"active\":99}"}],"structuredContent":{"active":3,"done":10}}`, pointer: "/active", want: 3},
		{name: "structured, nested array", raw: `{"structuredContent":{"tools":[{"n":1},{"n":2.5}]}}`, pointer: "/tools/1/n", want: 2.5},
		{name: "structured, whole document", raw: `{"structuredContent":7}`, want: 7},
		{name: "structured null falls back to text", raw: `{"content":[{"type":"text","text":"5"}],"structuredContent":null}`, want: 5},
		{name: "text JSON", raw: `{"content":[{"type":"text","text":"{\"inflight\": 12}"}]}`, pointer: "/inflight", want: 12},
		{name: "first text block after an image", raw: `{"content":[{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":"[4,5]"},{"type":"text","text":"[9]"}]}`, pointer: "/1", want: 5},
		{name: "negative and exponent", raw: `{"structuredContent":{"v":-1.5e2}}`, pointer: "/v", want: -150},
		{name: "a string is not a number", raw: `{"structuredContent":{"active":"3"}}`, pointer: "/active", wantErr: `structuredContent: json pointer "/active" refers to a string "3", not a number`},
		{name: "an object is not a number", raw: `{"structuredContent":{"active":{"n":1}}}`, pointer: "/active", wantErr: `refers to an object with 1 key, not a number`},
		{name: "null is not a number", raw: `{"structuredContent":{"active":null}}`, pointer: "/active", wantErr: `refers to null, not a number`},
		{name: "bool is not a number", raw: `{"structuredContent":{"active":false}}`, pointer: "/active", wantErr: `refers to false, not a number`},
		{name: "number out of range", raw: `{"structuredContent":{"v":1e999}}`, pointer: "/v", wantErr: `number 1e999 is out of range`},
		{name: "missing key", raw: `{"structuredContent":{"active":1}}`, pointer: "/inflight", wantErr: `structuredContent: resolve json pointer "/inflight": key "inflight" not found`},
		{name: "text is not JSON", raw: `{"content":[{"type":"text","text":"3 calls"}]}`, wantErr: `the first text content block is not JSON`},
		{name: "no content", raw: `{"content":[]}`, wantErr: `neither structuredContent nor a text content block`},
		{name: "tool error", raw: `{"isError":true,"content":[{"type":"text","text":"no such counter"}]}`, wantErr: `result is a tool error: "no such counter"`},
		{name: "call fails", callErr: errors.New("tools/call inflight: HTTP status 503"), wantErr: `tool "inflight": tools/call inflight: HTTP status 503`},
		{name: "bad pointer", raw: `{"structuredContent":1}`, pointer: "active", wantErr: `tool "inflight": parse json pointer "active"`},
		{name: "result not an object", raw: `[1]`, wantErr: `decode result`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fc := &fakeCaller{raw: tt.raw, err: tt.callErr}
			p := NewTool(fc, "inflight", json.RawMessage(`{"scope":"all"}`), tt.pointer)
			got, err := p.Sample(t.Context())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Sample = %v, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Sample = %v, want %v", got, tt.want)
			}
			if fc.gotTool != "inflight" || string(fc.gotArgs) != `{"scope":"all"}` {
				t.Errorf("called %q with %s", fc.gotTool, fc.gotArgs)
			}
		})
	}
}

func TestToolNameAndContext(t *testing.T) {
	t.Parallel()
	fc := &fakeCaller{raw: `{"structuredContent":{"n":1}}`}
	if got := NewTool(fc, "inflight", nil, "").Name(); got != "tool inflight" {
		t.Errorf("Name = %q", got)
	}
	if got := NewTool(fc, "inflight", nil, "/n").Name(); got != "tool inflight /n" {
		t.Errorf("Name = %q", got)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := NewTool(fc, "inflight", nil, "/n").Sample(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Sample with a cancelled context: %v, want context.Canceled", err)
	}
}
