package targetserver

import (
	"bufio"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOversizeRefusedUnread: a POST that announces a body over the limit is
// answered 413 before any of its body is read. The request below sends the
// headers and 1 KiB of a 5 MiB body and then waits: a server that read up
// to its limit first would never answer.
func TestOversizeRefusedUnread(t *testing.T) {
	r := startHTTP(t, Config{})
	u, err := url.Parse(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	size := mcp.DefaultMaxRequestBodyBytes + 1<<20
	head := "POST " + u.Path + " HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n" +
		"Content-Length: " + strconv.Itoa(size) + "\r\n\r\n" + strings.Repeat(" ", 1024)
	if _, err := conn.Write([]byte(head)); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(testutil.WaitLong))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to an oversize request whose body was not sent: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", resp.StatusCode)
	}
}
