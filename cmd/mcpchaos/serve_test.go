package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestServeHelp: --help lists every knob.
func TestServeHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := serve(t.Context(), []string{"--help"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	for _, flag := range []string{"--listen", "--stdio", "--metrics-listen", "--seed", "--era",
		"--leak-on-cancel", "--stop-delay", "--propagate-cancel", "--progress-flood-hz", "--stall-after",
		"--endless", "--non-monotonic", "--progress-after-response", "--rate-limit", "--rate-limit-code", "--exit-delay"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("help lacks %s", flag)
		}
	}
	// Each knob's value is named by its placeholder, not by a word its
	// doc quotes (pflag takes a back-quoted word for the name).
	for _, k := range knobs.Table {
		want := "--" + k.Flag() + " " + k.Arg + " "
		if k.Kind == knobs.Bool {
			want = "--" + k.Flag() + "[=true] "
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if strings.Contains(out.String(), "`") {
		t.Errorf("help shows a back quote")
	}
	t.Log(out.String())
}

// TestServeBadFlags: bad values exit 2 naming the flag and quoting the value.
func TestServeBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--leak-on-cancel", "1.5"}, `--leak-on-cancel "1.5"`},
		{[]string{"--non-monotonic=-1"}, `--non-monotonic "-1"`},
		{[]string{"--leak-on-cancel", "abc"}, `"abc"`},
		{[]string{"--rate-limit", "fast"}, `--rate-limit: invalid rate "fast"`},
		{[]string{"--rate-limit", "0/1s"}, `--rate-limit: invalid rate "0/1s"`},
		{[]string{"--era", "2024"}, `--era "2024"`},
		{[]string{"--stall-after", "-1"}, `--stall-after "-1"`},
		{[]string{"--stop-delay", "soon"}, `"soon"`},
		{[]string{"--stdio", "--listen", ":1"}, "--listen and --stdio"},
		{[]string{"--metrics-listen", ":1"}, "--metrics-listen needs --stdio"},
		{[]string{"--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-self-signed", "ca.pem", "--tls-cert", "c.pem", "--tls-key", "k.pem"}, "--tls-self-signed and --tls-cert exclude each other"},
		{[]string{"--stdio", "--tls-self-signed", "ca.pem"}, "exclude --stdio"},
		{[]string{"--listen", "127.0.0.1:0", "--tls-cert", "/nonexistent/c.pem", "--tls-key", "/nonexistent/k.pem"}, `--tls-cert "/nonexistent/c.pem"`},
		{[]string{"--listen", "127.0.0.1:0", "--tls-self-signed", "/nonexistent/dir/ca.pem"}, `--tls-self-signed "/nonexistent/dir/ca.pem": write the CA`},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--no-such-flag"}, "no-such-flag"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := serve(t.Context(), tt.args, nil, &out, &errb)
			if code != 2 || !strings.Contains(errb.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %s", code, errb.String(), tt.want)
			}
		})
	}
}

// TestServeHTTP: serve on a free loopback port, metrics beside MCP, and a
// clean stop on cancellation.
func TestServeHTTP(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, []string{"--listen", "127.0.0.1:0", "--leak-on-cancel", "0.5"}, nil, io.Discard, pw)
		pw.Close()
	}()
	buf := make([]byte, 512)
	n, _ := pr.Read(buf)
	line := string(buf[:n])
	t.Log(line)
	m := regexp.MustCompile(`metrics on (\S+) `).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no metrics URL in %q", line)
	}
	resp, err := http.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("metrics status %d", resp.StatusCode)
	}
	go io.Copy(io.Discard, pr)
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after cancel", code)
		}
	case <-time.After(testutil.WaitLong):
		t.Fatal("serve did not stop on cancel")
	}
}

// TestServeStdio: stdio answers a 2026 discover and exits on stdin EOF
// after the exit delay, saying so on stderr (never on stdout).
func TestServeStdio(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- serve(t.Context(), []string{"--stdio", "--exit-delay", "50ms"}, inR, outW, &errb)
		outW.Close()
	}()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n")
	buf := make([]byte, 4096)
	n, _ := outR.Read(buf)
	if !strings.Contains(string(buf[:n]), `"supportedVersions"`) {
		t.Errorf("discover answer %q", buf[:n])
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "MCP on stdio") {
		t.Errorf("stderr %q", errb.String())
	}
}
