package gateways

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// The wire helpers the broken gateways share: forward a request upstream,
// copy an answer back, read and rewrite SSE events and JSON-RPC messages.

// maxBody bounds every body a gateway reads whole.
const maxBody = 16 << 20

// upstreamClient makes the gateways' requests (no timeout: the streams are
// as long as the calls).
var upstreamClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// readBody reads a request's body, bounded.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err == nil && len(b) > maxBody {
		err = fmt.Errorf("request body over %d bytes", maxBody)
	}
	return b, err
}

// forward sends r, with body, to the same path at upstream
// (http://HOST:PORT), on ctx.
func forward(ctx context.Context, upstream string, r *http.Request, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, r.Method, upstream+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("forward %s %q: %w", r.Method, r.URL, err)
	}
	req.Header = r.Header.Clone()
	req.Header.Del("Content-Length")
	if r.Method == http.MethodGet || r.Method == http.MethodDelete {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	return upstreamClient.Do(req)
}

// copyHeader copies an upstream answer's headers to w.
func copyHeader(w http.ResponseWriter, resp *http.Response) {
	for k, vs := range resp.Header {
		if strings.EqualFold(k, "Content-Length") {
			continue
		}
		w.Header()[k] = vs
	}
}

// message is a JSON-RPC message, its members raw.
type message map[string]json.RawMessage

// method returns the message's method ("" for a response).
func (m message) method() string {
	var s string
	_ = json.Unmarshal(m["method"], &s)
	return s
}

// isResponse reports whether m answers a request.
func (m message) isResponse() bool {
	_, res := m["result"]
	_, er := m["error"]
	return res || er
}

// parseMessage reads one JSON-RPC message (a batch is not one).
func parseMessage(b []byte) (message, bool) {
	var m message
	if json.Unmarshal(b, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

func (m message) encode() []byte {
	b, _ := json.Marshal(map[string]json.RawMessage(m))
	return b
}

// isSSE reports whether an answer is an event stream.
func isSSE(resp *http.Response) bool {
	return strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
}

// event is one SSE event: its lines other than data, and its data.
type event struct {
	other []string
	data  []byte
}

func (e event) encode() []byte {
	var b bytes.Buffer
	for _, l := range e.other {
		b.WriteString(l + "\n")
	}
	if e.data != nil {
		b.WriteString("data: ")
		b.Write(e.data)
		b.WriteString("\n")
	}
	b.WriteString("\n")
	return b.Bytes()
}

// readEvents calls each for every event of an SSE stream until it ends.
func readEvents(r io.Reader, each func(event)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var ev event
	has := false
	for {
		line, err := br.ReadString('\n')
		if len(line) > maxBody {
			return errors.New("SSE line too long")
		}
		l := strings.TrimRight(line, "\r\n")
		switch {
		case l == "" && line != "":
			if has {
				each(ev)
			}
			ev, has = event{}, false
		case strings.HasPrefix(l, "data:"):
			ev.data = append(ev.data, strings.TrimPrefix(strings.TrimPrefix(l, "data:"), " ")...)
			has = true
		case l != "":
			ev.other = append(ev.other, l)
			has = true
		}
		if err != nil {
			if has {
				each(ev)
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// writer writes to the client and flushes, and stops writing (without
// failing) once the client is gone, so the gateway still reads upstream.
type writer struct {
	w    http.ResponseWriter
	gone bool
}

func (w *writer) write(b []byte) {
	if w.gone {
		return
	}
	if _, err := w.w.Write(b); err != nil {
		w.gone = true
		return
	}
	if f, ok := w.w.(http.Flusher); ok {
		f.Flush()
	}
}

// bytesReader reads b.
func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// isToolsCall reports whether a request body is a tools/call.
func isToolsCall(body []byte) (message, bool) {
	m, ok := parseMessage(body)
	return m, ok && m.method() == "tools/call"
}

// relayCallEvents forwards r to upstream (the upstream request outlives
// the client's, as a gateway's does) and copies the answer back; the SSE
// stream of a tools/call goes event by event through each, which writes
// what it will to out, then end (nil: nothing more). Every other answer
// is copied as it comes.
func relayCallEvents(w http.ResponseWriter, r *http.Request, upstream string, each func(out *writer, ev event), end func(out *writer)) {
	body, err := readBody(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	resp, err := forward(context.WithoutCancel(r.Context()), upstream, r, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	copyHeader(w, resp)
	w.WriteHeader(resp.StatusCode)
	out := &writer{w: w}
	if _, call := isToolsCall(body); !call || !isSSE(resp) {
		io.Copy(flushWriter{out}, resp.Body)
		return
	}
	readEvents(resp.Body, func(ev event) { each(out, ev) })
	if end != nil {
		end(out)
	}
}
