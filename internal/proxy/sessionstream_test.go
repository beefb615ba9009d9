package proxy_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// listChangedServer is a scripted stdio server (sh): it answers the
// first line, the proxy's initialize (the proxy's first request, id 1),
// reads notifications/initialized, then answers every further line with
// a notifications/tools/list_changed that belongs to no call.
const listChangedServer = `read init
echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"scripted","version":"0"}}}'
read initialized
while read line; do echo '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'; done`

// TestSessionStreams: two 2025 sessions each open their GET stream; a
// notification of the server that belongs to no call reaches each
// stream once, as an SSE message event.
func TestSessionStreams(t *testing.T) {
	_, url, _ := startStdioProxyShell(t, "  []\n", listChangedServer)
	ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
	defer cancel()
	var streams []*bufio.Reader
	var sessions []*rawSession
	for range 2 {
		s := &rawSession{t: t, url: url}
		resp := s.do(ctx, "POST", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if s.id = resp.Header.Get("Mcp-Session-Id"); s.id == "" {
			t.Fatalf("initialize: %d, no session id", resp.StatusCode)
		}
		get := s.do(ctx, "GET", "")
		t.Cleanup(func() { get.Body.Close() })
		if get.StatusCode != http.StatusOK || get.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("GET: %d %q", get.StatusCode, get.Header.Get("Content-Type"))
		}
		streams, sessions = append(streams, bufio.NewReader(get.Body)), append(sessions, s)
	}
	// Any line the server reads makes it send the notification.
	if resp := sessions[0].do(ctx, "POST", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notification: %d", resp.StatusCode)
	}
	for i, r := range streams {
		var event []string
		for len(event) < 3 {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("session %d's stream: %v after %q", i, err, event)
			}
			event = append(event, strings.TrimRight(line, "\n"))
		}
		want := []string{"event: message", `data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, ""}
		if strings.Join(event, "\n") != strings.Join(want, "\n") {
			t.Errorf("session %d's stream: %q, want %q", i, event, want)
		}
	}
}
