package client

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// HTTP/2: an official-SDK server behind TLS (httptest's certificate, trusted
// through ca_file) that offers h2 on ALPN.

// protoLog records the protocol and client address of every request.
type protoLog struct {
	mu   sync.Mutex
	next http.Handler // under mu (wrap)
	seen []string     // "HTTP/2.0 127.0.0.1:port"
}

func (l *protoLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	l.seen = append(l.seen, r.Proto+" "+r.RemoteAddr)
	next := l.next
	l.mu.Unlock()
	next.ServeHTTP(w, r)
}

// wrap puts h in front of the handler, under the lock: the server may
// already be serving (a request of the fixture's own, or the client's
// GET stream).
func (l *protoLog) wrap(h func(next http.Handler) http.Handler) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next = h(l.next)
}

func (l *protoLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

type h2Fixture struct {
	cfg   *HTTPConfig
	log   *handlerLog
	proto *protoLog
}

// startSDKH2 serves the SDK server (stateless: 2026; else 2025 sessions)
// over TLS with HTTP/2 enabled.
func startSDKH2(t *testing.T, stateless bool) *h2Fixture {
	t.Helper()
	log := newHandlerLog()
	s := newSDKServer(log, nil)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s },
		&sdk.StreamableHTTPOptions{Stateless: stateless, PropagateRequestCancellation: true})
	pl := &protoLog{next: h}
	srv := httptest.NewUnstartedServer(pl)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	t.Cleanup(log.releaseAll)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	return &h2Fixture{cfg: &HTTPConfig{URL: srv.URL + "/mcp", TLS: &TLSOptions{CAFile: ca}}, log: log, proto: pl}
}

func (f *h2Fixture) dial(t *testing.T, http2 string) *Client {
	t.Helper()
	cfg := *f.cfg
	cfg.HTTP2 = http2
	c, err := Dial(ctxT(t), Config{HTTP: &cfg, LateWindow: lateWindow})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	closeClient(t, c)
	t.Cleanup(f.log.releaseAll) // before the close: a 2025 DELETE waits for handlers
	return c
}

func (f *h2Fixture) started(t *testing.T) {
	t.Helper()
	select {
	case <-f.log.started:
	case <-time.After(testutil.WaitLong):
		t.Fatal("tool handler did not start")
	}
}

// protos returns the distinct protocols and client addresses seen.
func (f *h2Fixture) protos() (protos, addrs []string) {
	for _, s := range f.proto.all() {
		p, a, _ := strings.Cut(s, " ")
		if !slices.Contains(protos, p) {
			protos = append(protos, p)
		}
		if !slices.Contains(addrs, a) {
			addrs = append(addrs, a)
		}
	}
	return protos, addrs
}

// TestHTTP2CallsShareAConnection: in both eras, tools/list, echo and slow
// calls with progress, run at once, go as streams of one HTTP/2 connection,
// and so does a 2025 session's GET stream.
func TestHTTP2CallsShareAConnection(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		stateless bool
		era       Era
		gets      int64
	}{
		{"2026", true, Era20260728, 0},
		{"2025", false, Era20251125, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startSDKH2(t, tc.stateless)
			c := f.dial(t, "")
			if c.Era() != tc.era || c.HTTPVersion() != "HTTP/2" {
				t.Fatalf("era %s over %s, want %s over HTTP/2", c.Era(), c.HTTPVersion(), tc.era)
			}
			if tools, err := c.ListTools(ctxT(t)); err != nil || len(tools) != 4 {
				t.Fatalf("ListTools: %d tools, %v", len(tools), err)
			}
			var calls []*Call
			var recs []*recorder
			for i := range 6 {
				rec := newRecorder()
				req := CallRequest{Tool: "echo", Arguments: []byte(`{"text":"hi"}`), Observer: rec}
				if i%2 == 1 {
					req = CallRequest{Tool: "slow", Arguments: []byte(`{"steps":4,"step_ms":20}`), Progress: true, Observer: rec}
				}
				call, err := c.Start(ctxT(t), req)
				if err != nil {
					t.Fatalf("start %d: %v", i, err)
				}
				calls, recs = append(calls, call), append(recs, rec)
			}
			var wg sync.WaitGroup
			for _, call := range calls {
				wg.Go(func() { waitCall(t, call) })
			}
			wg.Wait()
			for i, rec := range recs {
				evs := rec.events()
				if len(ofKind(evs, EvResult)) != 1 || lastEnd(t, evs).Err != nil {
					t.Errorf("call %d: %s", i, describe(evs))
				}
				if i%2 == 1 {
					checkProgressRun(t, evs, 4)
				}
			}
			testutil.Poll(testutil.WaitLong, func() bool { return c.Stats().GetStreams >= tc.gets })
			if got := c.Stats().GetStreams; got != tc.gets {
				t.Errorf("GET streams opened: %d, want %d", got, tc.gets)
			}
			protos, addrs := f.protos()
			if !slices.Equal(protos, []string{"HTTP/2.0"}) || len(addrs) != 1 {
				t.Errorf("the server saw %v from %v, want HTTP/2.0 from one connection", protos, addrs)
			}
		})
	}
}

// TestHTTP2CancelAndDisconnect: a 2026 cancel, and a disconnect fault in
// either mode, reset one call's stream: the server's handler sees its
// context end, while a call on the same connection goes on to its result.
func TestHTTP2CancelAndDisconnect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		legacy bool // a 2025 session: the cancel is a POSTed notification
		stop   func(*Call) error
	}{
		{"cancel", false, func(c *Call) error { return c.Cancel("test", false) }},
		{"disconnect-fin", false, func(c *Call) error { return c.Abort(AbortFIN) }},
		{"disconnect-rst", false, func(c *Call) error { return c.Abort(AbortRST) }},
		{"cancel-2025", true, func(c *Call) error { return c.Cancel("test", false) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startSDKH2(t, !tc.legacy)
			c := f.dial(t, HTTP2Auto)
			other := newRecorder()
			slow, err := c.Start(ctxT(t), CallRequest{Tool: "slow", Arguments: []byte(`{"steps":10,"step_ms":50}`), Progress: true, Observer: other})
			if err != nil {
				t.Fatal(err)
			}
			f.started(t)
			rec := newRecorder()
			hang, err := c.Start(ctxT(t), CallRequest{Tool: "hang", Progress: true, Observer: rec})
			if err != nil {
				t.Fatal(err)
			}
			go hang.Wait()
			f.started(t)
			if err := tc.stop(hang); err != nil {
				t.Fatal(err)
			}
			select {
			case s := <-f.log.ended:
				if !strings.HasPrefix(s, "hang ") {
					t.Errorf("the handler that ended is %q, want the hang call's", s)
				}
			case <-time.After(testutil.WaitLong):
				t.Fatal("the server's handler did not see its context end")
			}
			if end := lastEnd(t, rec.waitEnd(t)); end.Err != nil {
				t.Errorf("EvEnd of the stopped call: %v", end.Err)
			}
			waitCall(t, slow)
			evs := other.events()
			if len(ofKind(evs, EvResult)) != 1 || lastEnd(t, evs).Err != nil {
				t.Errorf("the call beside it: %s", describe(evs))
			}
			checkProgressRun(t, evs, 10)
			if _, addrs := f.protos(); len(addrs) != 1 {
				t.Errorf("the calls came from %v, want one connection", addrs)
			}
		})
	}
}

// TestHTTP2Off: http2 off offers http/1.1 only, to the same server.
func TestHTTP2Off(t *testing.T) {
	t.Parallel()
	f := startSDKH2(t, true)
	c := f.dial(t, HTTP2Off)
	if _, err := c.CallTool(ctxT(t), "echo", []byte(`{"text":"hi"}`)); err != nil {
		t.Fatal(err)
	}
	if c.HTTPVersion() != "HTTP/1.1" {
		t.Errorf("HTTPVersion = %q, want HTTP/1.1", c.HTTPVersion())
	}
	if protos, _ := f.protos(); !slices.Equal(protos, []string{"HTTP/1.1"}) {
		t.Errorf("the server saw %v, want HTTP/1.1 only", protos)
	}
}

// TestHTTP2StalledStream: a paused call stops reading its stream; once the
// stream's window is full the server's handler is held up, while a call on
// the same connection goes on to its result. Resumed, the stalled call gets
// every progress notification.
func TestHTTP2StalledStream(t *testing.T) {
	t.Parallel()
	f := startSDKH2(t, true)
	c := f.dial(t, "")
	const steps = 4000 // about 150 bytes each: several times the stream's window
	stalled := newRecorder()
	a, err := c.Start(ctxT(t), CallRequest{Tool: "slow", Arguments: []byte(`{"steps":4000,"step_ms":0}`), Progress: true, Observer: stalled})
	if err != nil {
		t.Fatal(err)
	}
	a.Pause()
	done := make(chan struct{})
	go func() { a.Wait(); close(done) }()
	f.started(t)
	other := newRecorder()
	b, err := c.Start(ctxT(t), CallRequest{Tool: "slow", Arguments: []byte(`{"steps":5,"step_ms":20}`), Progress: true, Observer: other})
	if err != nil {
		t.Fatal(err)
	}
	waitCall(t, b)
	if evs := other.events(); len(ofKind(evs, EvResult)) != 1 {
		t.Fatalf("the call beside the stalled one: %s", describe(evs))
	}
	// The other handler has finished; the stalled one must not have.
	select {
	case s := <-f.log.finished:
		if want := "slow p" + itoa(b.ID()); s != want {
			t.Errorf("the handler that finished is %q, want %q", s, want)
		}
	case <-time.After(testutil.WaitLong):
		t.Fatal("the other call's handler did not finish")
	}
	if !holds(t, 300*time.Millisecond, func() bool { return len(f.log.finished) == 0 }) {
		t.Fatal("the stalled call's handler finished: nothing held it up")
	}
	a.Resume()
	select {
	case <-done:
	case <-time.After(testutil.WaitLong):
		t.Fatal("the stalled call did not end after Resume")
	}
	evs := stalled.events()
	if len(ofKind(evs, EvResult)) != 1 {
		t.Fatalf("the stalled call: %d events, no result", len(evs))
	}
	checkProgressRun(t, evs, steps)
	if _, addrs := f.protos(); len(addrs) != 1 {
		t.Errorf("the calls came from %v, want one connection", addrs)
	}
}

// TestHTTP2HeaderListBound: a response whose header list is over the 1 MiB
// mcpchaos advertises fails its call, not the calls beside it.
func TestHTTP2HeaderListBound(t *testing.T) {
	t.Parallel()
	f := startSDKH2(t, true)
	big := strings.Repeat("x", 2<<20)
	f.proto.wrap(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Mcp-Name") == "slow" {
				w.Header().Set("X-Big", big)
			}
			next.ServeHTTP(w, r)
		})
	})
	c := f.dial(t, "")
	_, err := c.CallTool(ctxT(t), "slow", []byte(`{"steps":1,"step_ms":1}`))
	if err == nil {
		t.Fatal("a 2 MiB header list was accepted")
	}
	if _, err := c.CallTool(ctxT(t), "echo", []byte(`{"text":"hi"}`)); err != nil {
		t.Errorf("echo after the refused header list: %v", err)
	}
	if c.HTTPVersion() != "HTTP/2" {
		t.Errorf("HTTPVersion = %q", c.HTTPVersion())
	}
}
