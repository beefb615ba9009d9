package client

import (
	"strings"
	"testing"
	"time"
)

// TestStdioStopped: Close says how it had to end a server that did not
// exit on stdin EOF — SIGTERM, or SIGKILL when SIGTERM was ignored too —
// and nothing for a server that exits on EOF.
func TestStdioStopped(t *testing.T) {
	t.Parallel()
	const discover = `read discover
printf '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"]}}\n'
`
	tests := []struct {
		name   string
		script string
		signal string // "" for no signal needed
		want   string
	}{
		{name: "exits on EOF", script: discover + `cat >/dev/null`},
		// exec: the shell becomes sleep, which SIGTERM ends.
		{name: "ignores EOF", script: discover + `exec sleep 60`, signal: "SIGTERM",
			want: "ignored EOF; stopped by SIGTERM after"},
		{name: "ignores EOF and SIGTERM", script: discover + `trap '' TERM; while :; do sleep 1; done`, signal: "SIGKILL",
			want: "ignored EOF and SIGTERM; killed after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// A server that exits on EOF gets a generous grace: on a
			// starved machine the shell takes more than 200 ms to exit,
			// and Close waits only until it has.
			grace := 200 * time.Millisecond
			if tt.signal == "" {
				grace = 10 * time.Second
			}
			c, err := Dial(ctxT(t), Config{Stdio: &StdioConfig{Command: []string{"sh", "-c", tt.script}, ExitTimeout: grace}})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := c.Stopped(); ok {
				t.Fatal("Stopped reports a stop before Close")
			}
			if err := c.Close(ctxT(t)); err != nil {
				t.Fatalf("Close: %v", err)
			}
			st, ok := c.Stopped()
			if tt.signal == "" {
				if ok {
					t.Errorf("Stopped = %+v for a server that exits on EOF", st)
				}
				return
			}
			if !ok || st.Signal != tt.signal || st.PID != c.PID() {
				t.Fatalf("Stopped = %+v, %v; want %s for process %d", st, ok, tt.signal, c.PID())
			}
			steps := map[string]time.Duration{"SIGTERM": grace, "SIGKILL": 2 * grace}[tt.signal]
			if st.After < steps {
				t.Errorf("After = %s, want at least %s (the grace of each step)", st.After, steps)
			}
			if s := st.String(); !strings.Contains(s, tt.want) || !strings.Contains(s, "server process "+itoa(int64(st.PID))+" ") {
				t.Errorf("String() = %q, want it to name the pid and say %q", s, tt.want)
			}
			t.Log(st)
		})
	}
}
