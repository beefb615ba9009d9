package client

import (
	"bytes"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"
)

// rawPair returns a rawTCP client connection and the server's end of it,
// over loopback.
func rawPair(t *testing.T) (*rawTCP, *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv := <-accepted
	if srv == nil {
		t.Fatal("accept failed")
	}
	rc, ok := rawSockets(nc).(*rawTCP)
	if !ok {
		t.Fatalf("rawSockets gave %T, want *rawTCP", rawSockets(nc))
	}
	t.Cleanup(func() { rc.Close(); srv.Close() })
	return rc, srv.(*net.TCPConn)
}

// TestRawTCP: the raw connection carries bytes both ways (a write larger
// than the socket buffer included), reads io.EOF at an orderly close, and
// reports a deadline, a close of its own and a reset the way net's
// connections do, so the transport's checks (isTimeout, staleErr) hold.
func TestRawTCP(t *testing.T) {
	t.Run("round trip and EOF", func(t *testing.T) {
		c, srv := rawPair(t)
		big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB: more than a socket buffer
		got := make(chan []byte, 1)
		go func() {
			b, _ := io.ReadAll(io.LimitReader(srv, int64(len(big))))
			got <- b
		}()
		if n, err := c.Write(big); err != nil || n != len(big) {
			t.Fatalf("Write: %d, %v; want %d, nil", n, err, len(big))
		}
		if b := <-got; !bytes.Equal(b, big) {
			t.Fatalf("server read %d bytes, not what was written", len(b))
		}
		if _, err := srv.Write([]byte("answer")); err != nil {
			t.Fatal(err)
		}
		srv.CloseWrite()
		b, err := io.ReadAll(c)
		if err != nil || string(b) != "answer" {
			t.Fatalf("ReadAll: %q, %v; want %q and EOF", b, err, "answer")
		}
		if n, err := c.Read(make([]byte, 8)); n != 0 || err != io.EOF {
			t.Fatalf("Read after EOF: %d, %v; want 0, io.EOF", n, err)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		c, _ := rawPair(t)
		c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		_, err := c.Read(make([]byte, 8))
		if !isTimeout(err) {
			t.Fatalf("Read past its deadline: %v, want a timeout", err)
		}
	})
	t.Run("closed by us", func(t *testing.T) {
		c, _ := rawPair(t)
		done := make(chan error, 1)
		go func() {
			_, err := c.Read(make([]byte, 8))
			done <- err
		}()
		c.Close()
		if err := <-done; !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Read of a connection we closed: %v, want net.ErrClosed", err)
		}
		if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Write after our close: %v, want net.ErrClosed", err)
		}
	})
	t.Run("reset", func(t *testing.T) {
		c, srv := rawPair(t)
		srv.SetLinger(0)
		srv.Close() // an RST
		_, err := c.Read(make([]byte, 8))
		if !errors.Is(err, syscall.ECONNRESET) || !staleErr(err) {
			t.Fatalf("Read after a reset: %v, want ECONNRESET (a stale connection)", err)
		}
	})
}

// TestPeekIn: the bytes the server sent that we have not read, left
// where they are: none, then the five written (and still there to read),
// then none once read.
func TestPeekIn(t *testing.T) {
	c, srv := rawPair(t)
	var buf [8]byte
	if got := peekIn(c.TCPConn, buf[:]); len(got) != 0 {
		t.Fatalf("peeked %q before the server wrote", got)
	}
	if _, err := srv.Write([]byte("0\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(peekIn(c.TCPConn, buf[:])) < 5 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := peekIn(c.TCPConn, buf[:3]); string(got) != "0\r\n" {
		t.Fatalf("peeked %q, want the first 3 bytes written", got)
	}
	got := make([]byte, 5)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "0\r\n\r\n" {
		t.Fatalf("read %q, %v after peeking: want the bytes written", got, err)
	}
	if got := peekIn(c.TCPConn, buf[:]); len(got) != 0 {
		t.Errorf("peeked %q after reading them all", got)
	}
	if got := peekIn(nil, buf[:]); len(got) != 0 {
		t.Errorf("peeked %q on no connection", got)
	}
}
