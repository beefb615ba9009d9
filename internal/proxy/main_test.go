package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/proxy"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

var bin testutil.Binary

func TestMain(m *testing.M) {
	if os.Getenv(bigAnswerEnv) != "" {
		os.Exit(serveBigAnswer()) // the test binary re-executed as a stdio server
	}
	os.Exit(testutil.Main(m, &bin))
}

// running is a proxy serving on 127.0.0.1 in front of a built-in target.
type running struct {
	p      *proxy.Proxy
	url    string // the proxy's /mcp
	target *targetserver.Running
	stop   func() // stops the proxy and waits for Serve to return
}

// startProxy starts a built-in target and a proxy in front of it, whose
// file is faults (YAML, the faults list's entries) with hold.
func startProxy(t *testing.T, hold string, faults string) *running {
	t.Helper()
	target, err := targetserver.StartHTTP(t.Context(), targetserver.Config{}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { target.Close() })
	r := serveProxy(t, fmt.Sprintf("{http: {url: %q}}", target.URL), hold, faults)
	r.target = target
	return r
}

// serveProxy starts a proxy in front of upstream (the YAML of the proxy
// file's upstream), with hold and faults as startProxy takes them.
func serveProxy(t *testing.T, upstream, hold, faults string) *running {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, ln.Addr().String(), upstream, hold, faults)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx, ln) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := testutil.Receive(t, "the proxy to stop", served); err != nil {
			t.Errorf("Serve: %v", err)
		}
	}
	t.Cleanup(stop)
	return &running{p: p, url: "http://" + ln.Addr().String() + "/mcp", stop: stop}
}

// newProxy builds a proxy for listen and upstream, with hold and faults
// as startProxy takes them, and checks its upstream (a stdio one starts).
func newProxy(t *testing.T, listen, upstream, hold, faults string) *proxy.Proxy {
	t.Helper()
	file := fmt.Sprintf("name: test\nseed: 7\nlisten: %s\nupstream: %s\nhold: %s\nfaults:\n%s",
		listen, upstream, hold, faults)
	pf, err := scenarios.ParseProxy("test.yaml", []byte(file))
	if err != nil {
		t.Fatalf("ParseProxy:\n%s\n%v", file, err)
	}
	p, err := proxy.New(pf)
	if err != nil {
		t.Fatalf("proxy.New: %v", err)
	}
	if err := p.CheckUpstream(t.Context()); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeFile writes a file into the test's directory and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runScenario writes scenario to a file and runs `mcpchaos run` on it,
// within testutil.WaitLong; a failure is fatal, its message followed by
// more() when more is set (the proxy's records, say). It returns what the
// run printed.
func runScenario(t *testing.T, scenario string, more func() string) []byte {
	t.Helper()
	path := writeFile(t, "run.yaml", scenario)
	ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin.Need(t), "run", path).CombinedOutput()
	if err != nil {
		extra := ""
		if more != nil {
			extra = "\n" + more()
		}
		t.Fatalf("mcpchaos run: %v\n%s%s", err, out, extra)
	}
	return out
}

// dump is the records as JSON, for failure messages.
func dump(recs []proxy.CallRecord) string {
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return errors.Join(err).Error()
	}
	return string(b)
}
