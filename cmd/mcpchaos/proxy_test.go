package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestProxyBadInput: a proxy file with an unknown key, an upstream that
// cannot be reached, a listen address in use and an --output that cannot
// be created each exit 2 with one line, before anything listens, and
// leave no --output file behind (as run removes its outputs).
func TestProxyBadInput(t *testing.T) {
	target, err := targetserver.StartHTTP(t.Context(), targetserver.Config{}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { target.Close() })
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	closed := testutil.ClosedAddr(t)
	noDir := filepath.Join(t.TempDir(), "no-such-dir", "calls.jsonl")
	tests := []struct {
		name, file, want string
		args             []string // flags before the file
	}{
		{"unknown key", "listen: 127.0.0.1:0\nupstream: {http: {url: %q}}\nfualts: []\n", `p.yaml:3:1: unknown key "fualts"`, nil},
		{"unknown fault kind", "listen: 127.0.0.1:0\nupstream: {http: {url: %q}}\nfaults: [{kind: trottle}]\n", `p.yaml:3:17: faults[0].kind: unknown proxy fault kind "trottle"`, nil},
		{"a fault of a scenario", "listen: 127.0.0.1:0\nupstream: {http: {url: %q}}\nfaults: [{kind: cancel, after: 1s}]\n", `p.yaml:3:17: faults[0].kind: unknown proxy fault kind "cancel" (cancel is a fault of a scenario (mcpchaos run), not of the proxy; known: progress_endless,`, nil},
		{"upstream unreachable", "listen: 127.0.0.1:0\nupstream: {http: {url: \"http://" + closed + "/mcp\"}}\n", `mcpchaos proxy: check upstream "http://` + closed + `/mcp": dial tcp ` + closed + `: connect: connection refused`, nil},
		{"listen in use", "listen: " + busy.Addr().String() + "\nupstream: {http: {url: %q}}\n", `mcpchaos proxy: listen on "` + busy.Addr().String() + `"`, nil},
		{"output cannot be created", "listen: 127.0.0.1:0\nupstream: {http: {url: %q}}\n", `mcpchaos proxy: --output: open ` + noDir + `: no such file or directory`, []string{"--output", noDir}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.file
			if strings.Contains(file, "%q") {
				file = fmt.Sprintf(file, target.URL)
			}
			path := filepath.Join(t.TempDir(), "p.yaml")
			if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
				t.Fatal(err)
			}
			args, output := tc.args, filepath.Join(t.TempDir(), "calls.jsonl")
			if args == nil {
				args = []string{"--output", output}
			}
			code, stdout, stderr := runCLI(t, t.Context(), append(append([]string{"proxy"}, args...), path)...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != 2 || stdout != "" || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Fatalf("got exit %d, stdout %q, stderr %q; want 2 and one line with %q", code, stdout, stderr, tc.want)
			}
			if _, err := os.Stat(output); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("--output %s: %v, want it removed", output, err)
			}
		})
	}
}

// TestProxyInterrupt runs the real binary in front of the built-in
// target, sends it two calls, interrupts it and reads what it wrote: the
// text summary, --summary-json and one --output record per call, the
// first written while the proxy runs (at the client's next call, which
// settles its Retry-After), the second when it stops.
func TestProxyInterrupt(t *testing.T) {
	target, err := targetserver.StartHTTP(t.Context(), targetserver.Config{}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { target.Close() })
	dir := t.TempDir()
	file := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf("name: ctrl-c\nlisten: 127.0.0.1:0\nupstream: {http: {url: %q}}\nfaults:\n  - {kind: throttle, retry_after: 1s}\n", target.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	sumPath, outPath := filepath.Join(dir, "s.json"), filepath.Join(dir, "calls.jsonl")
	stdout, stderr := &testutil.LockedWriter{W: new(bytes.Buffer)}, &testutil.LockedWriter{W: new(bytes.Buffer)}
	cmd := exec.Command(bin.Need(t), "proxy", "--summary-json", sumPath, "--output", outPath, file)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	listening := regexp.MustCompile(`listening on (http://\S+/mcp)`)
	var url string
	testutil.Eventually(t, "the proxy to listen", func() bool {
		m := listening.FindStringSubmatch(stderr.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	})
	for id := 1; id <= 2; id++ {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, id)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
			t.Fatalf("got %s with Retry-After %q, want 429 with 1", resp.Status, resp.Header.Get("Retry-After"))
		}
	}
	testutil.Eventually(t, "the first call's record in --output while the proxy runs", func() bool {
		b, _ := os.ReadFile(outPath)
		return strings.Contains(string(b), `"retry_after_honoured":false`)
	})
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := testutil.Receive(t, "the proxy to exit", done); err != nil {
		t.Fatalf("mcpchaos proxy: %v\nstderr: %s", err, stderr)
	}
	if !strings.Contains(stdout.String(), "calls               2") {
		t.Errorf("the text summary does not count the call:\n%s", stdout)
	}
	sum := readJSON(t, sumPath)
	if c, _ := sum["clients"].(map[string]any); c == nil || c["calls"] != 2.0 {
		t.Errorf("summary JSON: %v", sum)
	}
	b, err := os.ReadFile(outPath)
	if err != nil || strings.Count(string(b), "\n") != 2 || strings.Count(string(b), `"reaction":"throttled"`) != 2 {
		t.Errorf("--output: %v\n%s", err, b)
	}
}
