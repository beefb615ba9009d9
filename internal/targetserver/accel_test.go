package targetserver

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestXAccelBuffering: with the knob on, a tools/call answered as an SSE
// stream carries `X-Accel-Buffering: no` (and its events still arrive, so
// flushing passes through the header's wrapper); with it off, as most SDK
// servers, it does not; a JSON answer never carries it.
func TestXAccelBuffering(t *testing.T) {
	tests := []struct {
		name string
		on   bool
		want string
	}{
		{name: "off by default", on: false, want: ""},
		{name: "on", on: true, want: "no"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := startHTTP(t, Config{XAccelBuffering: tt.on})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			body := modernCall(1, ToolSlowTask, map[string]any{"steps": 2, "step_ms": 1}, "tok")
			resp := post(t, ctx, http.MethodPost, r.URL, modernHeaders("tools/call", ToolSlowTask), body)
			defer resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Fatalf("Content-Type = %q, want text/event-stream", ct)
			}
			if got := resp.Header.Get("X-Accel-Buffering"); got != tt.want {
				t.Errorf("X-Accel-Buffering = %q, want %q", got, tt.want)
			}
			msgs := rpcMessages(t, resp)
			if len(msgs) != 3 { // two progress notifications, then the result
				t.Errorf("got %d messages, want 3: %v", len(msgs), msgs)
			}
			disc := post(t, ctx, http.MethodPost, r.URL, modernHeaders("server/discover", ""),
				`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}}}`)
			disc.Body.Close()
			if ct, got := disc.Header.Get("Content-Type"), disc.Header.Get("X-Accel-Buffering"); ct == "application/json" && got != "" {
				t.Errorf("a JSON answer carries X-Accel-Buffering %q", got)
			}
		})
	}
}
