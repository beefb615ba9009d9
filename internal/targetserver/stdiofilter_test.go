package targetserver

import (
	"bufio"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"io"
	"strings"
	"testing"
	"time"
)

// TestStdioAnswersBrokenInput: a line that is not JSON gets -32700 with a
// null id and the session carries on; a 2026 request without
// _meta.protocolVersion gets -32602 (the SDK alone would exit on the first
// and serve the second as a legacy request).
func TestStdioAnswersBrokenInput(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(t.Context(), inR, outW); outW.Close() }()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	next := func() string {
		t.Helper()
		got := make(chan string, 1)
		go func() {
			if lines.Scan() {
				got <- lines.Text()
			}
			close(got)
		}()
		select {
		case l := <-got:
			return l
		case <-time.After(testutil.WaitLong):
			t.Fatal("no answer")
			return ""
		}
	}
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, tc := range []struct{ name, send, want string }{
		{"broken JSON", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ec`, `"id":null,"error":{"code":-32700`},
		{"still serving", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"},` + meta + `}}`, `"text":"ok"`},
		{"missing protocolVersion", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}`, `"id":3,"error":{"code":-32602`},
	} {
		send(tc.send)
		if got := next(); !strings.Contains(got, tc.want) {
			t.Errorf("%s: answer %s, want it to contain %s", tc.name, got, tc.want)
		}
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	case <-time.After(testutil.WaitLong):
		t.Fatal("ServeStdio did not return at EOF")
	}
}
