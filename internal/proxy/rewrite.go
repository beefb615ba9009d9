package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/mcpchaos/mcpchaos/client"
)

// upstreamMsg is one message read from the upstream's answer, or the
// error that ended it.
type upstreamMsg struct {
	data []byte
	err  error
}

// readUpstream sends each message of resp (one JSON body, or SSE events)
// on out, then closes it; it stops when ctx ends.
func readUpstream(ctx context.Context, resp *http.Response, out chan<- upstreamMsg) {
	defer close(out)
	send := func(m upstreamMsg) bool {
		select {
		case out <- m:
			return true
		case <-ctx.Done():
			return false
		}
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct != "text/event-stream" {
		b, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
		switch {
		case err != nil:
			send(upstreamMsg{err: fmt.Errorf("read upstream body: %w", err)})
		case len(b) > MaxBody:
			send(upstreamMsg{err: fmt.Errorf("read upstream body: over %d bytes", MaxBody)})
		case len(bytes.TrimSpace(b)) > 0:
			send(upstreamMsg{data: b})
		}
		return
	}
	sse := client.NewSSEReader(resp.Body, MaxBody)
	for {
		data, err := sse.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			send(upstreamMsg{err: fmt.Errorf("read upstream stream: %w", err)})
			return
		}
		if !send(upstreamMsg{data: append([]byte(nil), data...)}) {
			return
		}
	}
}

// sseWriter writes the proxy's own SSE stream to the client.
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// event writes one message as an event and flushes it.
func (s sseWriter) event(data []byte) error {
	if bytes.ContainsAny(data, "\r\n") {
		var b bytes.Buffer
		if err := json.Compact(&b, data); err != nil {
			return fmt.Errorf("write event: %w", err)
		}
		data = b.Bytes()
	}
	if _, err := fmt.Fprintf(s.w, "event: message\ndata: %s\n\n", data); err != nil {
		return fmt.Errorf("write event: %w", err)
	}
	if err := s.rc.Flush(); err != nil {
		return fmt.Errorf("flush event: %w", err)
	}
	return nil
}
