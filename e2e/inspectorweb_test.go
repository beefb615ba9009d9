package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
)

// The MCP Inspector 2.12.0's web proxy (`mcp-inspector --web`), run out
// of process as its browser UI uses it: POST /api/mcp/connect opens a
// session to a server, POST /api/mcp/send relays one JSON-RPC message
// (and, for a request, returns once its answer came), and every message
// the server sends comes back on the session's event stream, GET
// /api/mcp/events. Not an MCP endpoint, so mcpchaos cannot run a scenario
// through it; the test drives it the way the UI does and holds what came
// back against the built-in target's own records, with the gateway join
// (report.JoinGateway) that a run uses.

// inspectorWeb starts the Inspector's web server (auth off, loopback) and
// returns its base URL.
func inspectorWeb(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(testutil.NpmClients(t, "@modelcontextprotocol/inspector"), ".bin", "mcp-inspector")
	addr := testutil.StartGateway(t, func(port int) []string {
		return []string{"env", "CLIENT_PORT=" + strconv.Itoa(port), "MCP_SANDBOX_PORT=" + strconv.Itoa(port+1),
			"DANGEROUSLY_OMIT_AUTH=true", "MCP_INSPECTOR_SECRET_STORE=memory", "MCP_AUTO_OPEN_ENABLED=false", bin, "--web"}
	})
	return "http://" + addr
}

// inspectorSession is one session of the Inspector's web proxy.
type inspectorSession struct {
	base, id string
}

// post POSTs body as JSON to the Inspector's path and decodes the answer
// (bounded) into out.
func (s *inspectorSession) post(ctx context.Context, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	ans, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: status %d, %q, %v", path, resp.StatusCode, ans, err)
	}
	if err := json.Unmarshal(ans, out); err != nil {
		return fmt.Errorf("POST %s: answer %q: %w", path, ans, err)
	}
	return nil
}

// send relays one message; an error unless the Inspector says ok.
func (s *inspectorSession) send(ctx context.Context, msg string) error {
	var ans struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := s.post(ctx, "/api/mcp/send", map[string]any{"sessionId": s.id, "message": json.RawMessage(msg)}, &ans); err != nil {
		return err
	}
	if !ans.OK {
		return fmt.Errorf("send %s: %s", msg, ans.Error)
	}
	return nil
}

// inspectorEvent is one MCP message from the event stream, with when it
// was read.
type inspectorEvent struct {
	at  time.Time
	msg struct {
		ID     *int64          `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
	}
}

// events reads the session's event stream until ctx ends, handing each MCP
// message to each (lines bounded to 1 MiB).
func (s *inspectorSession) events(ctx context.Context, each func(inspectorEvent)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/api/mcp/events?sessionId="+s.id, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if json.Unmarshal([]byte(data), &ev) != nil || ev.Type != "message" {
			continue
		}
		e := inspectorEvent{at: time.Now()}
		if json.Unmarshal(ev.Data, &e.msg) == nil {
			each(e)
		}
	}
	return sc.Err()
}

// TestInspectorWebProxy: four concurrent slow_task calls, each with its
// progress token and marker, through the Inspector's web proxy in front
// of the built-in target (a 2025 session). Every notification the target
// sent reaches the event stream before its call's result, and every
// answer echoes its own marker: joined with the target's records, nothing
// is lost, reordered, crossed or run twice, and every call was recorded.
func TestInspectorWebProxy(t *testing.T) {
	web := inspectorWeb(t)
	t.Parallel()
	tg, err := targetserver.StartHTTP(context.Background(), targetserver.Config{Seed: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
	defer cancel()
	s := connectInspector(t, ctx, web, tg.Addr)
	const calls, run = 4, "insp"
	gc := inspectorCalls(t, ctx, s, run, calls)
	checkInspectorTruth(t, ctx, tg.Addr, run, gc)
}

// connectInspector opens a session of the Inspector's web proxy at web to
// the Streamable HTTP server at addr.
func connectInspector(t *testing.T, ctx context.Context, web, addr string) *inspectorSession {
	t.Helper()
	s := &inspectorSession{base: web}
	var conn struct{ SessionID string }
	if err := s.post(ctx, "/api/mcp/connect", map[string]any{"config": map[string]any{"type": "streamable-http", "url": "http://" + addr + "/mcp"}}, &conn); err != nil || conn.SessionID == "" {
		t.Fatalf("connect: %v (session %q)", err, conn.SessionID)
	}
	s.id = conn.SessionID
	return s
}

// inspectorCalls initializes the session, sends calls slow_task calls at
// once, marked run.1.0, run.2.0, ..., and returns what the event stream
// carried of each once every one was answered and the stream is closed.
func inspectorCalls(t *testing.T, ctx context.Context, s *inspectorSession, run string, calls int) []report.GatewayCall {
	t.Helper()
	gc := make([]report.GatewayCall, calls)
	var mu sync.Mutex
	streamCtx, stopStream := context.WithCancel(ctx)
	streamDone := make(chan error, 1)
	go func() {
		streamDone <- s.events(streamCtx, func(e inspectorEvent) {
			mu.Lock()
			defer mu.Unlock()
			noteInspectorEvent(gc, e)
		})
	}()
	if err := s.send(ctx, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpchaos-e2e","version":"0"}}}`); err != nil {
		t.Fatal(err)
	}
	if err := s.send(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatal(err)
	}
	markers := make([]string, calls)
	mu.Lock()
	for i := range gc {
		markers[i] = fmt.Sprintf("%s.%d.0", run, i+1)
		gc[i] = report.GatewayCall{Marker: markers[i], RequestID: int64(10 + i)}
	}
	mu.Unlock()
	if err := s.sendCalls(ctx, markers); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "every answer on the event stream", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range gc {
			if !c.Answered {
				return false
			}
		}
		return true
	})
	stopStream()
	<-streamDone
	return gc
}

// checkInspectorTruth joins what the event stream carried of the calls with
// the target's records at addr: every call completed, every answer echoed
// its marker, and every notification was delivered before its result, with
// nothing crossed or run twice.
func checkInspectorTruth(t *testing.T, ctx context.Context, addr, run string, gc []report.GatewayCall) {
	t.Helper()
	calls := len(gc)
	truth := probes.NewTruth("http://"+addr, run+".")
	if err := truth.Read(ctx); err != nil {
		t.Fatal(err)
	}
	recs := truth.Calls()
	g := report.JoinGateway(gc, recs)
	sent := 0
	for _, r := range recs {
		sent += len(r.Progress)
		if r.Completed.IsZero() {
			t.Errorf("the target's record of %s: not completed", r.Marker)
		}
	}
	received := 0
	for _, c := range gc {
		received += len(c.Progress)
		if !c.Echoed {
			t.Errorf("%s: its answer did not echo its marker", c.Marker)
		}
	}
	t.Logf("the target sent %d notifications in %d executions; the event stream carried %d; gateway %+v, lag bins %v", sent, len(recs), received, g.GatewayCounts, g.Lag)
	if g.Executions != calls || sent != calls*5 || received != sent || g.ProgressLost+g.ProgressReordered+g.CrossedResponses+g.DuplicateExecutions+g.Unrecorded+g.Unended != 0 {
		t.Errorf("gateway %+v, evidence %v: want %d executions, every one of the %d notifications delivered before its result, nothing crossed or run twice",
			g.GatewayCounts, g.Evidence, calls, calls*5)
	}
}

// sendCalls sends a slow_task call for each of markers at once, with
// request id and progress token 10 + its index, and waits for the
// Inspector to have relayed every answer.
func (s *inspectorSession) sendCalls(ctx context.Context, markers []string) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(markers))
	for i, m := range markers {
		wg.Go(func() {
			errs <- s.send(ctx, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow_task","arguments":{"steps":5,"step_ms":100},"_meta":{"progressToken":%d,"dev.mcpchaos/call":%q}}}`,
				10+i, 10+i, m))
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// noteInspectorEvent files a message of the event stream under its call
// (by progress token or request id, 10 + the call's index).
func noteInspectorEvent(gc []report.GatewayCall, e inspectorEvent) {
	call := func(id int64) *report.GatewayCall {
		if id < 10 || id >= 10+int64(len(gc)) {
			return nil
		}
		return &gc[id-10]
	}
	switch {
	case e.msg.Method == "notifications/progress":
		var p struct {
			Token    int64   `json:"progressToken"`
			Progress float64 `json:"progress"`
		}
		if json.Unmarshal(e.msg.Params, &p) == nil {
			if c := call(p.Token); c != nil {
				c.Progress = append(c.Progress, report.GatewayProgress{Value: p.Progress, At: e.at})
			}
		}
	case e.msg.ID != nil && e.msg.Result != nil:
		c := call(*e.msg.ID)
		if c == nil {
			return
		}
		var r struct {
			Meta map[string]string `json:"_meta"`
		}
		_ = json.Unmarshal(e.msg.Result, &r)
		c.Answered, c.Response = true, e.at
		switch m := r.Meta["dev.mcpchaos/call"]; {
		case m == c.Marker:
			c.Echoed = true
		case m != "":
			c.Crossed = m
		}
	}
}
