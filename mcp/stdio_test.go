package mcp

import (
	"strings"
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
