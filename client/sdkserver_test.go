package client

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// Real servers built with the official Go SDK, for the interop tests: in
// process over loopback HTTP, and in a subprocess over stdio (the test
// binary re-executed as TestHelperStdioServer).

// handlerLog records what the SDK tool handlers did.
type handlerLog struct {
	started  chan string // a handler began ("tool token")
	ended    chan string // a handler saw its context end
	finished chan string // a handler returned normally
	release  chan struct{}
	once     sync.Once
}

func newHandlerLog() *handlerLog {
	return &handlerLog{
		started:  make(chan string, 1000),
		ended:    make(chan string, 1000),
		finished: make(chan string, 1000),
		release:  make(chan struct{}),
	}
}

// releaseAll lets every hanging handler return.
func (l *handlerLog) releaseAll() { l.once.Do(func() { close(l.release) }) }

type echoArgs struct {
	Text string `json:"text"`
}

type slowArgs struct {
	Steps  int `json:"steps"`
	StepMS int `json:"step_ms"`
}

type hangArgs struct{}

func textResult(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func tokenOf(req *sdk.CallToolRequest) string {
	if tok := req.Params.GetProgressToken(); tok != nil {
		return fmt.Sprint(tok)
	}
	return "-"
}

// newSDKServer builds a server with four tools: echo; slow (steps ×
// step_ms, one progress notification per step); hang (waits for its
// context to end or for the test to release it); stubborn (ignores its
// context: waits for the test to release it, then sends one progress
// notification and answers, echoing the call's marker in _meta).
func newSDKServer(log *handlerLog, opts *sdk.ServerOptions) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "sdk-test-server", Version: "1.2.3"}, opts)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "echoes text"},
		func(ctx context.Context, req *sdk.CallToolRequest, in echoArgs) (*sdk.CallToolResult, any, error) {
			return textResult(in.Text), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "steps with progress"},
		func(ctx context.Context, req *sdk.CallToolRequest, in slowArgs) (*sdk.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			log.started <- "slow " + tokenOf(req)
			for i := 1; i <= in.Steps; i++ {
				select {
				case <-ctx.Done():
					log.ended <- "slow " + tokenOf(req)
					return nil, nil, ctx.Err()
				case <-time.After(time.Duration(in.StepMS) * time.Millisecond):
				}
				if tok != nil {
					_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
						ProgressToken: tok, Progress: float64(i), Total: float64(in.Steps)})
				}
			}
			log.finished <- "slow " + tokenOf(req)
			return textResult("done"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "hang", Description: "waits for cancellation"},
		func(ctx context.Context, req *sdk.CallToolRequest, _ hangArgs) (*sdk.CallToolResult, any, error) {
			log.started <- "hang " + tokenOf(req)
			select {
			case <-ctx.Done():
				log.ended <- "hang " + tokenOf(req)
				return nil, nil, ctx.Err()
			case <-log.release:
				log.finished <- "hang " + tokenOf(req)
				return textResult("released"), nil, nil
			case <-time.After(time.Minute):
				return textResult("gave up"), nil, nil
			}
		})
	sdk.AddTool(s, &sdk.Tool{Name: "stubborn", Description: "ignores cancellation: answers when the test releases it"},
		func(ctx context.Context, req *sdk.CallToolRequest, _ hangArgs) (*sdk.CallToolResult, any, error) {
			log.started <- "stubborn " + tokenOf(req)
			<-log.release
			bg := context.WithoutCancel(ctx)
			if tok := req.Params.GetProgressToken(); tok != nil {
				_ = req.Session.NotifyProgress(bg, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: 1})
			}
			log.finished <- "stubborn " + tokenOf(req)
			res := textResult("done anyway")
			if m, ok := req.Params.Meta[MarkerMeta]; ok { // echoed, as the built-in target does
				res.Meta = sdk.Meta{MarkerMeta: m}
			}
			return res, nil, nil
		})
	return s
}

// seenRequest is one HTTP request as the server received it.
type seenRequest struct {
	method string
	header http.Header
	body   []byte
	// session is the Mcp-Session-Id the server set on its answer.
	session string
}

// reqLog is an http.Handler wrapper that records every request.
type reqLog struct {
	next http.Handler
	url  string // where it is served, when the test needs it
	mu   sync.Mutex
	reqs []seenRequest
}

func (l *reqLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	l.mu.Lock()
	i := len(l.reqs)
	l.reqs = append(l.reqs, seenRequest{method: r.Method, header: r.Header.Clone(), body: body})
	l.mu.Unlock()
	l.next.ServeHTTP(w, r)
	l.mu.Lock()
	l.reqs[i].session = w.Header().Get("Mcp-Session-Id")
	l.mu.Unlock()
}

func (l *reqLog) all() []seenRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]seenRequest(nil), l.reqs...)
}

// httpFixture is an SDK server behind the streamable handler on loopback.
type httpFixture struct {
	url  string
	log  *handlerLog
	reqs *reqLog
}

// startSDKHTTP serves the SDK server statelessly (2026-07-28) or with
// sessions (which negotiates 2025-11-25).
func startSDKHTTP(t testing.TB, stateless, propagate bool) *httpFixture {
	t.Helper()
	log := newHandlerLog()
	s := newSDKServer(log, nil)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s },
		&sdk.StreamableHTTPOptions{Stateless: stateless, PropagateRequestCancellation: propagate})
	rl := &reqLog{next: h}
	srv := httptest.NewServer(rl)
	t.Cleanup(srv.Close)
	t.Cleanup(log.releaseAll) // runs first: lets hanging handlers return
	return &httpFixture{url: srv.URL + "/mcp", log: log, reqs: rl}
}

// helperEnv gates TestHelperStdioServer.
const helperEnv = "MCPCHAOS_TEST_HELPER"

// helperCommand re-executes the test binary as a stdio server of the given
// kind (see TestHelperStdioServer).
func helperStdio(kind string) *StdioConfig {
	return &StdioConfig{
		Command: []string{os.Args[0], "-test.run=^TestHelperStdioServer$"},
		// A race-enabled binary sleeps 1 s at exit unless told not to.
		Env:         []string{helperEnv + "=" + kind, "GORACE=atexit_sleep_ms=0"},
		ExitTimeout: 5 * time.Second,
	}
}

// TestHelperStdioServer is not a test: it is the stdio server the tests
// start as a subprocess. Kinds:
//
//	sdk        SDK server, all versions (auto-detects as 2026-07-28)
//	sdk-legacy SDK server limited to 2025 versions (server/discover → -32022)
//	legacy601  the same, behind a filter that answers server/discover with
//	           -32601, as a hand-written legacy server would
//	slowdiscover the "sdk" server behind a filter that holds the first
//	           server/discover until the next line (our initialize) has come,
//	           as a starved server reads them: it answers the discover late,
//	           then refuses the initialize as a duplicate
//	hostile    a scripted server that breaks rules on purpose (hostile_stdio_test.go)
//
// Handler activity is written to stderr as "started|ended|finished <tool>
// <token>" lines, which the client keeps in its stderr ring.
func TestHelperStdioServer(t *testing.T) {
	kind := os.Getenv(helperEnv)
	if kind == "" {
		t.Skip("helper process only")
	}
	if kind == "hostile" {
		hostileStdioServer()
		os.Exit(0)
	}
	log := newHandlerLog()
	go func() {
		for {
			select {
			case s := <-log.started:
				fmt.Fprintln(os.Stderr, "started", s)
			case s := <-log.ended:
				fmt.Fprintln(os.Stderr, "ended", s)
			case s := <-log.finished:
				fmt.Fprintln(os.Stderr, "finished", s)
			}
		}
	}()
	var opts *sdk.ServerOptions
	if kind != "sdk" && kind != "slowdiscover" {
		opts = &sdk.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25", "2025-06-18"}}
	}
	s := newSDKServer(log, opts)
	var tr sdk.Transport = &sdk.StdioTransport{}
	if kind == "legacy601" {
		tr = discoverFilter()
	}
	if kind == "slowdiscover" {
		tr = heldDiscoverFilter()
	}
	err := s.Run(context.Background(), tr)
	fmt.Fprintln(os.Stderr, "server exited:", err)
	os.Exit(0)
}

// discoverFilter answers server/discover with -32601 itself and passes
// every other line to the SDK.
func discoverFilter() sdk.Transport {
	pr, pw := io.Pipe()
	out := &testutil.LockedWriter{W: os.Stdout}
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if bytes.Contains(line, []byte(`"method":"server/discover"`)) {
				var m inMsg
				var s scanner
				if decodeMessage(&s, line, &m) == nil {
					fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`+"\n", m.idRaw)
				}
				continue
			}
			pw.Write(append(line, '\n'))
		}
		pw.Close()
	}()
	return &sdk.IOTransport{Reader: pr, Writer: out}
}

// heldDiscoverFilter holds the first server/discover line until the next
// line arrives, then hands the discover to the SDK and the next line only
// once the SDK has written the discover's answer: the SDK serves requests
// concurrently, and the order under test is discover settled first.
func heldDiscoverFilter() sdk.Transport {
	pr, pw := io.Pipe()
	out := &firstWrite{w: &testutil.LockedWriter{W: os.Stdout}, done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(nil, 1<<20)
		var held []byte
		first := true
		for sc.Scan() {
			line := append(slices.Clone(sc.Bytes()), '\n')
			if first && bytes.Contains(line, []byte(`"method":"server/discover"`)) {
				held, first = line, false
				continue
			}
			if held != nil {
				pw.Write(held)
				held = nil
				<-out.done
			}
			pw.Write(line)
		}
		pw.Close()
	}()
	return &sdk.IOTransport{Reader: pr, Writer: out}
}

// firstWrite closes done after its first write; closing it closes
// nothing (stdout stays the process's).
type firstWrite struct {
	w    *testutil.LockedWriter
	once sync.Once
	done chan struct{}
}

func (f *firstWrite) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	f.once.Do(func() { close(f.done) })
	return n, err
}

func (f *firstWrite) Close() error { return f.w.Close() }

// stderrCount counts the lines of a stdio server's stderr that start with
// prefix.
func stderrCount(c *Client, prefix string) int {
	n := 0
	for _, line := range strings.Split(string(c.Stderr()), "\n") {
		if strings.HasPrefix(line, prefix) {
			n++
		}
	}
	return n
}
