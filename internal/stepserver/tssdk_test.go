package stepserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestTSSDKServer drives the TypeScript SDK's step server with the
// official Go SDK's client over stdio and Streamable HTTP: a call with a
// progress token gets its progress and its steps logged; cancelled after
// its second progress notification, a stopping server logs where it
// stopped and a leaking one logs every step, whether its steps compute or
// sleep. Without node and .ci/tssdk's
// packages it is skipped (CI set: it fails).
func TestTSSDKServer(t *testing.T) {
	var configs []Config
	for _, transport := range []string{"stdio", "http"} {
		for _, leak := range []bool{false, true} {
			configs = append(configs, Config{SDK: "tssdk", Transport: transport, Leak: leak})
		}
	}
	// Steps that sleep (the controls), over stdio.
	configs = append(configs, Config{SDK: "tssdk", Transport: "stdio", Sleep: true}, Config{SDK: "tssdk", Transport: "stdio", Leak: true, Sleep: true})
	for _, c := range configs {
		t.Run(c.String(), func(t *testing.T) {
			c.Truth = filepath.Join(t.TempDir(), "truth")
			argv := NeedCommand(t, c, "")
			s := connectTS(t, c, argv)
			t.Run("finished call", func(t *testing.T) { finishedCall(t, s, c) })
			t.Run("cancelled call", func(t *testing.T) { cancelledCall(t, s, c) })
		})
	}
}

// tsSession is a client's session with its progress notifications.
type tsSession struct {
	*mcp.ClientSession
	progress chan *mcp.ProgressNotificationParams
}

// connectTS starts the server of argv for c and connects a Go SDK client.
func connectTS(t *testing.T, c Config, argv []string) tsSession {
	t.Helper()
	progress := make(chan *mcp.ProgressNotificationParams, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "stepserver-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params:
			default: // the tests read the first few; a leaking call sends on
			}
		},
	})
	var transport mcp.Transport
	if c.Transport == "stdio" {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), Env+"="+c.String(), TruthEnv+"="+c.Truth)
		cmd.Stderr = os.Stderr
		transport = &mcp.CommandTransport{Command: cmd}
	} else {
		url, _, stop := StartHTTP(t, c, argv)
		t.Cleanup(stop)
		transport = &mcp.StreamableClientTransport{Endpoint: url}
	}
	ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitLong)
	defer cancel()
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", c, err)
	}
	t.Cleanup(func() { _ = session.Close() })
	return tsSession{session, progress}
}

func finishedCall(t *testing.T, s tsSession, c Config) {
	params := &mcp.CallToolParams{Name: "work", Arguments: map[string]any{"steps": 3, "step_ms": 5}}
	params.SetProgressToken("done1")
	ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitLong)
	defer cancel()
	res, err := s.CallTool(ctx, params)
	if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "worked 3 steps of 5 ms" {
		t.Fatalf("call work = %+v, %v; want worked 3 steps of 5 ms", res, err)
	}
	for n := 1; n <= 3; n++ {
		p := testutil.Receive(t, fmt.Sprintf("progress %d", n), s.progress)
		if p.ProgressToken != "done1" || p.Progress != float64(n) || p.Total != 3 {
			t.Fatalf("progress = %+v, want done1 %d of 3", p, n)
		}
	}
	if got := truthLines(t, c, "done1"); strings.Join(got, ",") != "step 1,step 2,step 3" {
		t.Fatalf("truth lines of done1 = %q, want steps 1 to 3", got)
	}
}

func cancelledCall(t *testing.T, s tsSession, c Config) {
	// 100 steps of 20 ms: the cancel, sent after the second, has about 2 s
	// to reach a stopping server before its call would end anyway.
	const steps = 100
	params := &mcp.CallToolParams{Name: "work", Arguments: map[string]any{"steps": steps, "step_ms": 20}}
	params.SetProgressToken("cut1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := s.CallTool(ctx, params); done <- err }()
	for n := 1; n <= 2; n++ {
		testutil.Receive(t, fmt.Sprintf("progress %d of the call to cut", n), s.progress)
	}
	cancel()
	if err := testutil.Receive(t, "the cancelled call's return", done); err == nil {
		t.Fatal("the cancelled call returned no error")
	}
	var want func([]string) bool
	if c.Leak {
		want = func(l []string) bool { return len(l) > 0 && l[len(l)-1] == fmt.Sprint("step ", steps) }
	} else {
		want = func(l []string) bool { return len(l) > 0 && strings.HasPrefix(l[len(l)-1], "stop ") }
	}
	testutil.Eventually(t, "the truth file's last line for the cut call (its last step leaking, stop N stopping)", func() bool {
		return want(truthLines(t, c, "cut1"))
	})
	if l := truthLines(t, c, "cut1"); !c.Leak && len(l) >= steps {
		t.Fatalf("the stopping server ran every step of a cancelled call: %q", l)
	}
}

// truthLines returns "WHAT STEP" of every truth line of token.
func truthLines(t *testing.T, c Config, token string) []string {
	t.Helper()
	data, err := os.ReadFile(c.Truth)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[1] == token {
			out = append(out, f[2]+" "+f[3])
		}
	}
	return out
}
