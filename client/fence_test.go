package client

import (
	"context"
	"testing"
	"time"
)

// TestFenceOrdersStdio: a scripted stdio server writes one progress
// notification, then reads our ping and answers it, then writes another.
// The fence's answer is read between the two: what was read before it may
// have been written before the server saw the ping, what came after was
// written after.
func TestFenceOrdersStdio(t *testing.T) {
	t.Parallel()
	script := `read discover
printf '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}\n'
read call
tok=$(printf '%s' "$call" | sed 's/.*"progressToken":"\([^"]*\)".*/\1/')
id=$(printf '%s' "$call" | sed 's/^{"jsonrpc":"2.0","id":\([0-9]*\).*/\1/')
printf '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"%s","progress":1}}\n' "$tok"
read ping
pid=$(printf '%s' "$ping" | sed 's/^{"jsonrpc":"2.0","id":\([0-9]*\).*/\1/')
printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$pid"
printf '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"%s","progress":2}}\n' "$tok"
printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}\n' "$id"
cat >/dev/null`
	c, err := Dial(ctxT(t), Config{Stdio: &StdioConfig{Command: []string{"sh", "-c", script}}, LateWindow: lateWindow})
	if err != nil {
		t.Fatal(err)
	}
	closeClient(t, c)
	r := newRecorder()
	if _, err := c.Start(ctxT(t), CallRequest{Tool: "t", Progress: true, Observer: r}); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, "the first progress", func(evs []Event) bool { return count(evs, EvProgress) == 1 })
	at, err := c.Fence(ctxT(t))
	if err != nil {
		t.Fatalf("Fence: %v", err)
	}
	evs := r.waitEnd(t)
	p := ofKind(evs, EvProgress)
	if len(p) != 2 {
		t.Fatalf("want 2 progress notifications: %s", describe(evs))
	}
	if !p[0].At.Before(at) || !at.Before(p[1].At) {
		t.Errorf("fence answered at %v; progress read at %v and %v: want the fence between them", at, p[0].At, p[1].At)
	}
}

// TestFenceNoAnswer: a server that never answers the ping gives an error
// once the context ends, not a time.
func TestFenceNoAnswer(t *testing.T) {
	t.Parallel()
	script := `read discover
printf '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}\n'
cat >/dev/null`
	c, err := Dial(ctxT(t), Config{Stdio: &StdioConfig{Command: []string{"sh", "-c", script}}, LateWindow: lateWindow})
	if err != nil {
		t.Fatal(err)
	}
	closeClient(t, c)
	ctx, cancel := context.WithTimeout(ctxT(t), 200*time.Millisecond)
	defer cancel()
	if at, err := c.Fence(ctx); err == nil || !at.IsZero() {
		t.Errorf("Fence = %v, %v; want an error and no time", at, err)
	}
}

// TestCutLateWindowStdio: a call we cancelled is watched for
// CutLateWindow, when longer than LateWindow: progress the server writes
// 0.5 s after our cancel is the call's when the cut late window is 3 s, and
// no longer seen with the 200 ms late window alone.
func TestCutLateWindowStdio(t *testing.T) {
	t.Parallel()
	script := `read discover
printf '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}\n'
read call
tok=$(printf '%s' "$call" | sed 's/.*"progressToken":"\([^"]*\)".*/\1/')
printf '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"%s","progress":1}}\n' "$tok"
read cancelled
sleep 0.5
printf '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"%s","progress":2}}\n' "$tok"
cat >/dev/null`
	for _, tc := range []struct {
		name         string
		cut          time.Duration
		wantProgress int
	}{
		{"the cut late window", 3 * time.Second, 2},
		{"the late window alone", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := Dial(ctxT(t), Config{Stdio: &StdioConfig{Command: []string{"sh", "-c", script}}, LateWindow: lateWindow, CutLateWindow: tc.cut})
			if err != nil {
				t.Fatal(err)
			}
			closeClient(t, c)
			r := newRecorder()
			call, err := c.Start(ctxT(t), CallRequest{Tool: "t", Progress: true, Observer: r})
			if err != nil {
				t.Fatal(err)
			}
			r.waitFor(t, "the first progress", func(evs []Event) bool { return count(evs, EvProgress) == 1 })
			if err := call.Cancel("test", false); err != nil {
				t.Fatal(err)
			}
			evs := r.waitEnd(t)
			if n := count(evs, EvProgress); n != tc.wantProgress {
				t.Errorf("%d progress notifications for the call, want %d: %s", n, tc.wantProgress, describe(evs))
			}
		})
	}
}
