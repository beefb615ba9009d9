package targetserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"net"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// helperEnv, when set, makes the test binary a stdio target whose Config is
// the variable's JSON value (the "helper process" pattern).
const helperEnv = "MCPCHAOS_TARGET_HELPER"

// helperMetricsEnv, when set, makes the helper serve its metrics there
// (127.0.0.1:0 in the tests) and print the address on stderr.
const helperMetricsEnv = "MCPCHAOS_TARGET_HELPER_METRICS"

func TestMain(m *testing.M) {
	if cfgJSON := os.Getenv(helperEnv); cfgJSON != "" {
		os.Exit(helperMain(cfgJSON))
	}
	os.Exit(m.Run())
}

// helperMain serves stdio like `mcpchaos serve --stdio` does.
func helperMain(cfgJSON string) int {
	var cfg Config
	if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	s, err := New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if addr := os.Getenv(helperMetricsEnv); addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		srv := &http.Server{Handler: s.MetricsHandler(), ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		// The line `mcpchaos serve --stdio` prints: the test learns the port.
		fmt.Fprintf(os.Stderr, "helper: metrics on http://%s/metrics\n", ln.Addr())
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := s.ServeStdio(ctx, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// helperCommand returns a command that runs the test binary as a stdio
// target for cfg.
func helperCommand(t *testing.T, cfg Config) *exec.Cmd {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// GORACE: a race-enabled binary otherwise sleeps a second at exit.
	cmd.Env = append(os.Environ(), helperEnv+"="+string(b), "GORACE=atexit_sleep_ms=0")
	cmd.Stderr = os.Stderr
	return cmd
}

// TestSubprocess drives a target in its own process over real pipes: a call
// with progress, then the exit on stdin EOF with and without ExitDelay.
func TestSubprocess(t *testing.T) {
	tests := []struct {
		name      string
		exitDelay time.Duration
		terminate time.Duration // how long the client waits before SIGTERM
		wantMin   time.Duration // Close takes at least this long
	}{
		{"exits on EOF", 0, testutil.WaitLong, 0},
		{"exit delay", 300 * time.Millisecond, testutil.WaitLong, 300 * time.Millisecond},
		{"SIGTERM ends the delay", time.Hour, 200 * time.Millisecond, 200 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			log := newProgressLog()
			client := mcp.NewClient(&mcp.Implementation{Name: "target-test", Version: "0"},
				&mcp.ClientOptions{ProgressNotificationHandler: log.handler})
			tr := &mcp.CommandTransport{Command: helperCommand(t, Config{ExitDelay: tt.exitDelay}), TerminateDuration: tt.terminate}
			cs, err := client.Connect(t.Context(), tr, nil)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			if v := cs.InitializeResult().ProtocolVersion; v != vocab.FirstModern {
				t.Errorf("negotiated %s over stdio, want %s", v, vocab.FirstModern)
			}
			got, _ := callText(t, t.Context(), cs, &mcp.CallToolParams{
				Name: ToolCPUTask, Arguments: map[string]any{"steps": 2, "step_ms": 10},
				Meta: mcp.Meta{"progressToken": 1},
			})
			if got != "done: 2 steps of 10ms" {
				t.Errorf("cpu_task = %q", got)
			}
			testutil.Eventually(t, "two progress notifications", func() bool { return len(log.values("1")) == 2 })

			start := time.Now()
			err = cs.Close()
			took := time.Since(start)
			if err != nil {
				t.Errorf("close: %v (process did not exit cleanly)", err)
			}
			if took < tt.wantMin {
				t.Errorf("process exited %v after stdin closed, want at least %v", took, tt.wantMin)
			}
			if took > testutil.WaitLong {
				t.Errorf("process took %v to exit", took)
			}
			t.Logf("exit took %v", took)
		})
	}
}
