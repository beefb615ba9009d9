package client

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestStdioCloseLeftoverChild: the server exits on stdin EOF but leaves a
// child behind that still holds its stdout. Close must not wait for that
// child: it kills the process group once the exit timeout has passed.
func TestStdioCloseLeftoverChild(t *testing.T) {
	t.Parallel()
	script := `read discover
printf '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}\n'
sleep 60 2>/dev/null &
cat >/dev/null`
	c, err := Dial(ctxT(t), Config{Stdio: &StdioConfig{Command: []string{"sh", "-c", script}, ExitTimeout: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- c.Close(ctxT(t)) }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(testutil.WaitLong):
		t.Fatal("Close waited for the server's leftover child")
	}
	t.Logf("Close took %v", time.Since(start))
	if _, err := c.Start(ctxT(t), CallRequest{Tool: "x"}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Start after Close: %v", err)
	}
}

// TestStdioStderrRing: the server's stderr is kept, bounded to the last
// StderrBytes.
func TestStdioStderrRing(t *testing.T) {
	t.Parallel()
	script := `read discover
i=0; while [ $i -lt 200 ]; do echo "line $i" >&2; i=$((i+1)); done
printf '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}\n'
cat >/dev/null`
	c, err := Dial(ctxT(t), Config{Stdio: &StdioConfig{Command: []string{"sh", "-c", script}, StderrBytes: 64}})
	if err != nil {
		t.Fatal(err)
	}
	closeClient(t, c)
	testutil.Eventually(t, "the last stderr line", func() bool { return strings.HasSuffix(string(c.Stderr()), "line 199\n") })
	if got := c.Stderr(); len(got) != 64 {
		t.Errorf("Stderr() holds %d bytes, want the last 64", len(got))
	}
	if c.PID() <= 0 {
		t.Errorf("PID() = %d", c.PID())
	}
}

// TestStdioStderrTap: every process gets its own tap, which sees all of
// stderr in order, whatever the ring keeps.
func TestStdioStderrTap(t *testing.T) {
	t.Parallel()
	script := `read discover
i=0; while [ $i -lt 200 ]; do echo "line $i" >&2; i=$((i+1)); done
printf '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}\n'
cat >/dev/null`
	var mu sync.Mutex
	var taps []*bytes.Buffer
	tap := func() io.Writer {
		mu.Lock()
		defer mu.Unlock()
		b := new(bytes.Buffer)
		taps = append(taps, b)
		return tapWriter{&mu, b}
	}
	c, err := Dial(ctxT(t), Config{Stdio: &StdioConfig{Command: []string{"sh", "-c", script}, StderrBytes: 64, StderrTap: tap}})
	if err != nil {
		t.Fatal(err)
	}
	closeClient(t, c)
	testutil.Eventually(t, "the last line on the tap", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(taps) > 0 && strings.HasSuffix(taps[0].String(), "line 199\n")
	})
	mu.Lock()
	defer mu.Unlock()
	if len(taps) != 1 {
		t.Fatalf("%d taps for one process", len(taps))
	}
	var want strings.Builder
	for i := range 200 {
		fmt.Fprintf(&want, "line %d\n", i)
	}
	if taps[0].String() != want.String() {
		t.Errorf("the tap got %d bytes, want all %d in order", taps[0].Len(), want.Len())
	}
}

type tapWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l tapWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestStdioBrokenLinesCountedOnce: every broken line on stdout is counted
// exactly once — as the violation of the call it answers when its id can
// be read, else as the connection's — and a broken answer ends its call
// with a protocol error at once.
func TestStdioBrokenLinesCountedOnce(t *testing.T) {
	t.Parallel()
	script := `read discover
printf '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}\n'
read a; read b
big=$(head -c 2000 /dev/zero | tr '\0' a)
printf '{"jsonrpc":"2.0","id":2,"result":{"x":"%s"}}\n' "$big"
printf '{"jsonrpc":"2.0","method":"x","params":{"x":"%s"}}\n' "$big"
printf '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"caf\351"}]}}\n'
printf '{"jsonrpc":"2.0","id":999,"result":{"content":[{"type":"text","text":"caf\351"}]}}\n'
printf '{"jsonrpc":"2.0","id":999999,"result":{}}\n'
cat >/dev/null`
	c, err := Dial(ctxT(t), Config{Stdio: &StdioConfig{Command: []string{"sh", "-c", script}}, MaxMessageBytes: 1024, LateWindow: lateWindow})
	if err != nil {
		t.Fatal(err)
	}
	closeClient(t, c)
	big, bad := newRecorder(), newRecorder()
	for _, r := range []*recorder{big, bad} {
		if _, err := c.Start(ctxT(t), CallRequest{Tool: "t", Observer: r}); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, "the last line", func() bool { return c.Stats().UnknownResponses == 1 })
	evs := big.waitEnd(t)
	if v := violations(evs); len(v) != 1 || v[0] != ViolOversize || !IsOversize(lastEnd(t, evs).Err) {
		t.Errorf("oversize answer: %s", describe(evs))
	}
	evs = bad.waitEnd(t)
	if v := violations(evs); len(v) != 1 || v[0] != ViolNotJSONRPC || !IsProtocolError(lastEnd(t, evs).Err) || count(evs, EvResult) != 0 {
		t.Errorf("answer with invalid UTF-8: %s", describe(evs))
	}
	// Two oversize lines: one is call 2's violation, one the connection's.
	// Two lines with invalid UTF-8: one is call 3's, one the connection's.
	if s := c.Stats(); s.Oversize != 1 || s.NotJSONRPC != 1 || s.UnknownResponses != 1 {
		t.Errorf("Stats = %+v, want oversize 1, not_jsonrpc 1, unknown_responses 1", s)
	}
}

// TestStdioExitCPU: once the server has exited and been reaped, ExitCPU is
// the CPU it used (here a busy loop before it reads to EOF); unknown while
// it runs.
func TestStdioExitCPU(t *testing.T) {
	t.Parallel()
	script := `read discover
printf '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}\n'
i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done
cat >/dev/null`
	c, err := Dial(ctxT(t), Config{Stdio: &StdioConfig{Command: []string{"sh", "-c", script}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.ExitCPU(); ok {
		t.Error("ExitCPU known while the server runs")
	}
	if err := c.Close(ctxT(t)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	<-c.Exited()
	cpu, ok := c.ExitCPU()
	if !ok || cpu < 10*time.Millisecond {
		t.Errorf("ExitCPU = %v, %v after the exit; want the busy loop's CPU", cpu, ok)
	}
	t.Logf("the server used %v", cpu)
}
