package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// Control traffic on the HTTP transport: notifications (the 2025 cancel,
// notifications/initialized, background faults), cancelling and aborting
// a call, and ending a legacy session.

// notify POSTs a notification and expects 202 (any 2xx is accepted).
func (t *httpTransport) notify(ctx context.Context, method string, body []byte) error {
	status, err := t.exchange(ctx, method, body)
	if err != nil {
		return err
	}
	if status < 200 || status > 299 {
		return fmt.Errorf("HTTP status %d", status)
	}
	return nil
}

// exchange sends a request whose answer's body does not matter (a
// notification; the session DELETE when body is nil) and returns the
// answer's status. A pooled connection that turns out to be stale (the
// write fails, or the read fails before any byte of an answer) is replaced
// by a new one, once.
func (t *httpTransport) exchange(ctx context.Context, method string, body []byte) (int, error) {
	if t.onH2() {
		status, err := t.exchangeH2(ctx, method, body)
		if err != errUseH1 {
			return status, err
		}
	}
	conn, err := t.get(ctx)
	if err == errUseH2 {
		return t.exchangeH2(ctx, method, body)
	}
	if err != nil {
		return 0, err
	}
	for {
		stale := false
		var status int
		if err = t.writeRequest(ctx, conn, method, "", nil, body); err != nil {
			conn.nc.Close()
			stale = conn.reused
		} else if status, err = t.simpleResponse(ctx, conn); err != nil {
			stale = conn.reused && conn.lim.n == 0 && staleErr(err)
		}
		if !stale {
			return status, err
		}
		if conn, err = t.dial(ctx); err == errUseH2 {
			return t.exchangeH2(ctx, method, body)
		} else if err != nil {
			return 0, err
		}
	}
}

// simpleResponse reads a response whose body does not matter, bounded,
// and recycles the connection when it can.
func (t *httpTransport) simpleResponse(ctx context.Context, conn *httpConn) (int, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	_ = conn.nc.SetReadDeadline(deadline)
	conn.lim.n, conn.lim.max = 0, maxHeaderBytes
	resp, err := http.ReadResponse(conn.br, nil)
	conn.lim.max = 0
	if err != nil {
		conn.nc.Close()
		return 0, err
	}
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if err == nil && !resp.Close {
		if n, _ := resp.Body.Read(make([]byte, 1)); n == 0 {
			t.put(conn)
			return resp.StatusCode, nil
		}
	}
	conn.nc.Close()
	return resp.StatusCode, nil
}

func (t *httpTransport) cancel(call *Call, reason string, notify bool) error {
	if t.c.era.Modern() {
		t.closeCallConn(call, AbortFIN)
		if notify {
			go t.postCancel(call.id, reason)
		}
		return nil
	}
	// Keep reading the stream for late messages, and past the late
	// window for stale ones, but not for ever. The window runs from the
	// cancel, as on stdio: a server slow to answer the POST below must
	// not stretch it.
	t.armRelease(call)
	return t.postCancel(call.id, reason)
}

func (t *httpTransport) postCancel(id int64, reason string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := t.notify(ctx, vocab.MethodCancelled, appendCancelled(nil, id, reason)); err != nil {
		return fmt.Errorf("post notifications/cancelled for %d: %w", id, err)
	}
	return nil
}

func (t *httpTransport) abort(call *Call, mode AbortMode) error {
	if mode != AbortFIN && mode != AbortRST {
		return fmt.Errorf("abort mode %s does not apply to HTTP", mode)
	}
	t.closeCallConn(call, mode)
	return nil
}

// closeCallConn closes a call's connection with a FIN or an RST.
func (t *httpTransport) closeCallConn(call *Call, mode AbortMode) {
	call.gateMu.Lock()
	conn := call.conn
	call.gateMu.Unlock()
	if conn == nil {
		return
	}
	call.markClosed()
	if conn.tcp != nil {
		if mode == AbortRST {
			_ = conn.tcp.SetLinger(0)
		} else {
			_ = conn.tcp.CloseWrite()
		}
	}
	conn.nc.Close()
}

func (t *httpTransport) close(ctx context.Context) error {
	t.stopListening(ctx)
	var err error
	if sid := t.sessionID(); sid != "" && !t.c.era.Modern() {
		err = t.deleteSession(ctx)
	}
	t.mu.Lock()
	t.closed = true
	idle := t.idle
	t.idle = nil
	t.mu.Unlock()
	for _, conn := range idle {
		conn.nc.Close()
	}
	t.closeWatched()
	if t.h2 != nil {
		t.h2.close()
	}
	return err
}

// deleteSession ends a legacy session; 405 (not supported) is fine.
func (t *httpTransport) deleteSession(ctx context.Context) error {
	status, err := t.exchange(ctx, "", nil)
	if err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	if status >= 300 && status != http.StatusMethodNotAllowed {
		return fmt.Errorf("delete session: HTTP status %d", status)
	}
	return nil
}
