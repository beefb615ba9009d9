package proxy_test

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/proxy"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// The upstreams the examples name, each swapped for one of the test's.
const (
	exampleHTTP  = `"http://127.0.0.1:8080/mcp"`
	exampleSSE   = `"http://127.0.0.1:8080/sse"`
	exampleStdio = `[mcpchaos, serve, --stdio]`
)

// TestExamplesRun runs every proxy file of examples/proxy as written, with
// `mcpchaos run` in front of it: only its listen address (127.0.0.1:0) and
// its upstream are the test's (the built-in target over HTTP, the Go SDK's
// HTTP+SSE server, or `mcpchaos serve --stdio` of the tests' binary). The
// run ends (exit 0 or 1), the proxy records the calls, and every fault
// kind of the file hit at least one of them.
func TestExamplesRun(t *testing.T) {
	files, err := filepath.Glob("../../examples/proxy/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no proxy examples: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			p, pf, url, calls := exampleProxy(t, file)
			ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
			defer cancel()
			run := writeFile(t, "run.yaml", `name: proxy-example
seed: 3
target:
  http: {url: "`+url+`", headers: {X-Client-Id: example}}
load: {rate: 40/1s, duration: 1s}
timeouts: {idle: 3s, max: 3s}
calls:
`+calls+`
orphans: {grace: 200ms, drain_max: 200ms}
fail_on_violation: false # the faults make violations: the test reads the proxy's records
`)
			out, err := exec.CommandContext(ctx, bin.Need(t), "run", "-q", run).CombinedOutput()
			var exit *exec.ExitError
			if err != nil && (!errors.As(err, &exit) || exit.ExitCode() != 1) {
				t.Fatalf("mcpchaos run through the example: %v\n%s", err, out)
			}
			recs := p.Records()
			if len(recs) == 0 {
				t.Fatalf("the proxy recorded no call\n%s", out)
			}
			hit := map[string]bool{}
			for _, r := range recs {
				for _, k := range r.Injected {
					hit[k] = true
				}
			}
			for _, f := range pf.Faults {
				if !hit[f.Kind] {
					t.Errorf("fault %s hit none of %d calls\n%s", f.Kind, len(recs), dump(recs))
				}
			}
		})
	}
}

// exampleProxy loads the example file with the test's upstream, serves it
// on 127.0.0.1:0 until the test ends, and returns the proxy, its file,
// its /mcp URL and the calls (scenario YAML) the upstream's tools make.
func exampleProxy(t *testing.T, file string) (p *proxy.Proxy, pf *scenarios.ProxyFile, url, calls string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	calls = "  - {tool: slow_task, weight: 3, arguments: {steps: 4, step_ms: 100}, progress: true}\n" +
		"  - {tool: echo, weight: 1, arguments: {text: hi}}"
	switch {
	case strings.Contains(text, exampleHTTP):
		tg, err := targetserver.StartHTTP(t.Context(), targetserver.Config{}, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		text = strings.ReplaceAll(text, exampleHTTP, strconv.Quote(tg.URL))
	case strings.Contains(text, exampleSSE):
		text = strings.ReplaceAll(text, exampleSSE, strconv.Quote(startSSEServer(t).url))
		calls = "  - {tool: wait, weight: 3, progress: true}\n  - {tool: echo, weight: 1, arguments: {text: hi}}"
	case strings.Contains(text, exampleStdio):
		text = strings.ReplaceAll(text, exampleStdio, "["+strconv.Quote(bin.Need(t))+", serve, --stdio]")
	default:
		t.Fatalf("%s: an upstream this test does not know (%s, %s or %s): teach it", file, exampleHTTP, exampleSSE, exampleStdio)
	}
	pf, err = scenarios.ParseProxy(file, []byte(text))
	if err != nil {
		t.Fatalf("the example does not load:\n%v", err)
	}
	if p, err = proxy.New(pf); err != nil {
		t.Fatal(err)
	}
	if err := p.CheckUpstream(t.Context()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := testutil.Receive(t, "the proxy to stop", served); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return p, pf, "http://" + ln.Addr().String() + "/mcp", calls
}
