package client

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// Interop tests: our client against servers built with the official Go SDK,
// over real loopback sockets and real subprocess pipes, in every era.

const lateWindow = 200 * time.Millisecond

// interopTarget is one server, transport and era.
type interopTarget struct {
	name string
	era  Era // what Dial must settle on
	// http: a stateless (2026) or stateful (2025) SDK handler; else stdio.
	http, stateless, propagate bool
	stdio                      string // helper kind
	force                      Era    // Config.Protocol
	// cancelEnds: Call.Cancel ends the SDK handler's context.
	cancelEnds bool
}

var interopTargets = []interopTarget{
	{name: "http-2026-stateless", era: Era20260728, http: true, stateless: true, propagate: true, cancelEnds: true},
	{name: "http-2025-stateful", era: Era20251125, http: true, cancelEnds: true},
	{name: "stdio-2026-auto", era: Era20260728, stdio: "sdk", cancelEnds: true},
	{name: "stdio-2025-forced", era: Era20251125, stdio: "sdk", force: Era20251125, cancelEnds: true},
	{name: "stdio-2025-auto-32022", era: Era20251125, stdio: "sdk-legacy", cancelEnds: true},
	{name: "stdio-2025-auto-32601", era: Era20251125, stdio: "legacy601", cancelEnds: true},
}

// live is a dialled client and what the server side lets the test see.
type live struct {
	c *Client
	f *httpFixture // nil on stdio
	// stderr lines already accounted for (stdio)
	started, ended int
}

func (tg interopTarget) dial(t *testing.T, cfg Config) *live {
	t.Helper()
	l := &live{}
	if tg.http {
		l.f = startSDKHTTP(t, tg.stateless, tg.propagate)
		cfg.HTTP = &HTTPConfig{URL: l.f.url}
	} else {
		cfg.Stdio = helperStdio(tg.stdio)
	}
	cfg.Protocol = tg.force
	if cfg.ProbeTimeout == 0 {
		// The helper is this test binary, under -race: on a busy machine
		// it takes more than the default 5 s to answer server/discover,
		// and is then taken for a silent legacy server.
		cfg.ProbeTimeout = testutil.WaitLong
	}
	if cfg.LateWindow == 0 {
		cfg.LateWindow = lateWindow
	}
	c, err := Dial(ctxT(t), cfg)
	if err != nil {
		t.Fatalf("dial %s: %v", tg.name, err)
	}
	l.c = c
	closeClient(t, c)
	if l.f != nil {
		// Runs before the close: a stateful DELETE waits for running handlers.
		t.Cleanup(l.f.log.releaseAll)
	}
	return l
}

// waitStarted waits until a tool handler has started and returns its
// "tool token" line.
func (l *live) waitStarted(t *testing.T) string {
	t.Helper()
	if l.f != nil {
		select {
		case s := <-l.f.log.started:
			return s
		case <-time.After(testutil.WaitLong):
			t.Fatal("tool handler did not start")
		}
	}
	l.started++
	testutil.Eventually(t, "tool handler start", func() bool { return stderrCount(l.c, "started ") >= l.started })
	lines := stderrLines(l.c, "started ")
	return strings.TrimPrefix(lines[l.started-1], "started ")
}

// handlerEnded reports whether a handler's context ended within d.
func (l *live) handlerEnded(d time.Duration) bool {
	if l.f != nil {
		select {
		case <-l.f.log.ended:
			return true
		case <-time.After(d):
			return false
		}
	}
	if testutil.Poll(d, func() bool { return stderrCount(l.c, "ended ") > l.ended }) {
		l.ended++
		return true
	}
	return false
}

func stderrLines(c *Client, prefix string) []string {
	var out []string
	for _, line := range strings.Split(string(c.Stderr()), "\n") {
		if strings.HasPrefix(line, prefix) {
			out = append(out, line)
		}
	}
	return out
}

func forEachTarget(t *testing.T, fn func(t *testing.T, tg interopTarget)) {
	for _, tg := range interopTargets {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			fn(t, tg)
		})
	}
}

func TestInteropDialListCall(t *testing.T) {
	t.Parallel()
	forEachTarget(t, func(t *testing.T, tg interopTarget) {
		l := tg.dial(t, Config{})
		if got := l.c.Era(); got != tg.era {
			t.Errorf("Era() = %s, want %s", got, tg.era)
		}
		if got, want := l.c.Transport(), map[bool]string{true: "http", false: "stdio"}[tg.http]; got != want {
			t.Errorf("Transport() = %q, want %q", got, want)
		}
		if got := l.c.Server(); got.Name != "sdk-test-server" || got.Version != "1.2.3" {
			t.Errorf("Server() = %+v, want sdk-test-server 1.2.3", got)
		}
		// A legacy server may still answer server/discover (the stateful
		// SDK handler does, listing only 2025 versions).
		if d := l.c.Discover(); tg.era.Modern() && d == nil || d != nil && tg.era.Modern() != supports(d.SupportedVersions, Era20260728) {
			t.Errorf("Discover() = %+v for era %s", d, tg.era)
		}
		tools, err := l.c.ListTools(ctxT(t))
		if err != nil {
			t.Fatalf("ListTools: %v", err)
		}
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
			if !json.Valid(tool.InputSchema) {
				t.Errorf("tool %s: inputSchema %q is not JSON", tool.Name, tool.InputSchema)
			}
		}
		slices.Sort(names)
		if want := []string{"echo", "hang", "slow", "stubborn"}; !slices.Equal(names, want) {
			t.Errorf("tools = %v, want %v", names, want)
		}
		res, err := l.c.CallTool(ctxT(t), "echo", json.RawMessage(`{"text":"héllo \"world\""}`))
		if err != nil {
			t.Fatalf("CallTool echo: %v", err)
		}
		if got := string(res.Result.Text); got != `héllo \"world\"` {
			t.Errorf("echo text (raw JSON string body) = %q", got)
		}
		if res.Result.IsError || !json.Valid(res.Raw) {
			t.Errorf("echo result: isError=%v raw=%s", res.Result.IsError, res.Raw)
		}
	})
}

func TestInteropProgress(t *testing.T) {
	t.Parallel()
	forEachTarget(t, func(t *testing.T, tg interopTarget) {
		l := tg.dial(t, Config{})
		rec := newRecorder()
		call, err := l.c.Start(ctxT(t), CallRequest{Tool: "slow", Arguments: json.RawMessage(`{"steps":5,"step_ms":20}`), Progress: true, Observer: rec})
		if err != nil {
			t.Fatal(err)
		}
		if call.Token() != call.ID() || call.Token() == 0 {
			t.Errorf("Token() = %d, ID() = %d", call.Token(), call.ID())
		}
		if got, want := l.waitStarted(t), "slow p"+itoa(call.ID()); got != want {
			t.Errorf("server saw %q, want %q", got, want)
		}
		waitCall(t, call)
		evs := rec.waitEnd(t)
		if tg.http {
			if h := ofKind(evs, EvHeaders); len(h) != 1 || h[0].Status != 200 || h[0].ContentType != "text/event-stream" || h[0].RetryAfter != -1 {
				t.Errorf("headers events = %s", describe(h))
			}
			evs = slices.DeleteFunc(evs, func(ev Event) bool { return ev.Kind == EvHeaders })
		}
		checkProgressRun(t, evs, 5)
		for _, ev := range ofKind(evs, EvProgress) {
			if !ev.HasTotal || ev.Total != 5 {
				t.Errorf("progress %v: total %v (has %v), want 5", ev.Progress, ev.Total, ev.HasTotal)
			}
		}
		if r := ofKind(evs, EvResult); len(r) != 1 || string(r[0].Result.Text) != "done" || r[0].Result.IsError {
			t.Errorf("result = %+v", r)
		}
		if sent := call.Sent(); sent.IsZero() || evs[0].At.Before(sent) {
			t.Errorf("Sent() = %v, first event at %v", sent, evs[0].At)
		}
		if rec.overlap.Load() {
			t.Error("OnEvent ran concurrently for one call")
		}
	})
}

// TestInteropCancel cancels a slow call after its second progress event and
// watches the SDK handler: its context must end wherever the SDK propagates
// the era's cancel. The "nopropagate" case is the SDK's default 2026 HTTP
// handler, which keeps running after the stream closes: a known positive
// for the orphan detector.
func TestInteropCancel(t *testing.T) {
	t.Parallel()
	targets := append(slices.Clone(interopTargets),
		interopTarget{name: "http-2026-stateless-nopropagate", era: Era20260728, http: true, stateless: true})
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			t.Parallel()
			l := tg.dial(t, Config{})
			rec := newRecorder()
			call, err := l.c.Start(ctxT(t), CallRequest{Tool: "slow", Arguments: json.RawMessage(`{"steps":40,"step_ms":25}`), Progress: true, Observer: rec})
			if err != nil {
				t.Fatal(err)
			}
			go call.Wait()
			l.waitStarted(t)
			rec.waitFor(t, "two progress events", func(evs []Event) bool { return count(evs, EvProgress) >= 2 })
			before := len(rec.events())
			if err := call.Cancel("test cancel", false); err != nil {
				t.Fatalf("Cancel: %v", err)
			}
			cut := len(rec.events())
			select {
			case <-call.Done():
			default:
				t.Error("Done() not closed after Cancel")
			}
			if tg.cancelEnds {
				if !l.handlerEnded(testutil.WaitLong) {
					t.Fatal("the handler's context did not end after the cancel")
				}
			} else {
				if l.handlerEnded(500 * time.Millisecond) {
					t.Fatal("the handler's context ended, but this SDK configuration should not propagate the disconnect")
				}
				select { // it runs on to the end, with nobody listening
				case s := <-l.f.log.finished:
					t.Logf("orphaned handler finished: %s", s)
				case <-time.After(testutil.WaitLong):
					t.Fatal("the orphaned handler neither ended nor finished")
				}
			}
			evs := rec.waitEnd(t)
			for i, ev := range evs[cut:] {
				if !ev.Late {
					t.Errorf("event %d after Cancel (%s) not marked Late", cut+i, describe([]Event{ev}))
				}
			}
			for i, ev := range evs[:before] {
				if ev.Late {
					t.Errorf("event %d before Cancel marked Late", i)
				}
			}
			if end := lastEnd(t, evs); end.Err != nil {
				t.Errorf("EvEnd after our own cancel: err = %v, want nil", end.Err)
			}
			if n := count(evs, EvViolation); n != 0 {
				t.Errorf("violations: %s", describe(evs))
			}
		})
	}
}

func TestInteropAbortHTTP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		tg    interopTarget
		mode  AbortMode
		wantE bool // the handler's context ends
	}{
		{"2026-fin", interopTargets[0], AbortFIN, true},
		{"2026-rst", interopTargets[0], AbortRST, true},
		// 2025: a disconnect is not a cancel; the SDK keeps the handler.
		{"2025-rst", interopTargets[1], AbortRST, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := tc.tg.dial(t, Config{})
			rec := newRecorder()
			call, err := l.c.Start(ctxT(t), CallRequest{Tool: "hang", Progress: true, Observer: rec})
			if err != nil {
				t.Fatal(err)
			}
			go call.Wait()
			l.waitStarted(t)
			if err := call.Abort(tc.mode); err != nil {
				t.Fatalf("Abort(%s): %v", tc.mode, err)
			}
			wait := testutil.WaitLong
			if !tc.wantE {
				wait = 500 * time.Millisecond
			}
			if got := l.handlerEnded(wait); got != tc.wantE {
				t.Errorf("handler context ended = %v, want %v", got, tc.wantE)
			}
			evs := rec.waitEnd(t)
			if end := lastEnd(t, evs); end.Err != nil || !end.Late {
				t.Errorf("EvEnd after Abort: err=%v late=%v", end.Err, end.Late)
			}
			if err := call.Abort(AbortClose); err == nil {
				t.Error("Abort(AbortClose) on HTTP: want an error")
			}
		})
	}
}

func TestInteropAbortStdio(t *testing.T) {
	t.Parallel()
	for _, mode := range []AbortMode{AbortClose, AbortKill} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			l := interopTargets[2].dial(t, Config{})
			rec, other := newRecorder(), newRecorder()
			call, err := l.c.Start(ctxT(t), CallRequest{Tool: "hang", Progress: true, Observer: rec})
			if err != nil {
				t.Fatal(err)
			}
			bystander, err := l.c.Start(ctxT(t), CallRequest{Tool: "hang", Observer: other})
			if err != nil {
				t.Fatal(err)
			}
			l.waitStarted(t)
			l.waitStarted(t)
			if got := l.c.ExitLatency(); got != -1 {
				t.Errorf("ExitLatency before exit = %v, want -1", got)
			}
			if err := call.Abort(mode); err != nil {
				t.Fatalf("Abort(%s): %v", mode, err)
			}
			select {
			case <-l.c.Exited():
			case <-time.After(testutil.WaitLong):
				t.Fatalf("server process did not exit after Abort(%s)", mode)
			}
			lat := l.c.ExitLatency()
			if mode == AbortClose && lat < 0 {
				t.Errorf("ExitLatency after stdin close = %v, want >= 0", lat)
			}
			if mode == AbortKill && lat != -1 {
				t.Errorf("ExitLatency after kill = %v, want -1 (stdin was not closed first)", lat)
			}
			if end := lastEnd(t, rec.waitEnd(t)); end.Err != nil || !end.Late {
				t.Errorf("aborted call's EvEnd: err=%v late=%v", end.Err, end.Late)
			}
			// The other call was not ours to stop: it ends with the process.
			end := lastEnd(t, other.waitEnd(t))
			if end.Err == nil || end.Late {
				t.Errorf("bystander's EvEnd: err=%v late=%v, want an error", end.Err, end.Late)
			} else if !strings.Contains(end.Err.Error(), "killed") && !strings.Contains(end.Err.Error(), "server closed stdout") && !strings.Contains(end.Err.Error(), "server exited") {
				// The reader waits only 100 ms for the exit status before it
				// settles for "closed stdout", so both are possible.
				t.Errorf("bystander's EvEnd: %v", end.Err)
			}
			select { // EvEnd is emitted just before Done closes
			case <-bystander.Done():
			case <-time.After(testutil.WaitLong):
				t.Error("bystander Done() not closed")
			}
			if _, err := l.c.Start(ctxT(t), CallRequest{Tool: "echo"}); err == nil {
				t.Error("Start after the server exited: want an error")
			}
			if err := call.Abort(AbortFIN); err == nil {
				t.Error("Abort(AbortFIN) on stdio: want an error")
			}
		})
	}
}
