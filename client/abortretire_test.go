package client

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestAbortRetiresBeforeTheCallEnds: a stdio call cut by Abort ends only
// once its server is retired, so the next call the waiter starts goes to
// a new process. The call used to end first and the server to retire
// after, when closing its stdin or killing it: a closed-model worker then
// sent its next call to the cut server ("server stdin is closed"). The
// test holds the transport's write lock, which closing stdin needs, so
// without the order the call ends with the server not yet retired.
func TestAbortRetiresBeforeTheCallEnds(t *testing.T) {
	t.Parallel()
	const script = `read discover
printf '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}\n'
cat >/dev/null`
	// AbortKill retires the same way; only AbortClose waits for the
	// write lock, so only it tells the two orders apart every time.
	for _, mode := range []AbortMode{AbortClose, AbortKill} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			c, err := Dial(ctxT(t), Config{Stdio: &StdioConfig{Command: []string{"sh", "-c", script}}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctxT(t))
			call, err := c.Start(ctxT(t), CallRequest{Tool: "echo"})
			if err != nil {
				t.Fatal(err)
			}
			tr := c.tr.(*stdioTransport)
			tr.wmu.Lock()
			aborted := make(chan error, 1)
			go func() { aborted <- call.Abort(mode) }()
			testutil.Receive(t, "the aborted call's end", call.Done())
			select {
			case <-c.Retired():
			default:
				t.Errorf("Abort(%s): the call ended before its server was retired", mode)
			}
			if !c.Cut() {
				t.Errorf("Abort(%s): Cut() = false once the call ended", mode)
			}
			tr.wmu.Unlock()
			if err := testutil.Receive(t, "Abort's return", (<-chan error)(aborted)); err != nil {
				t.Errorf("Abort(%s): %v", mode, err)
			}
		})
	}
}
