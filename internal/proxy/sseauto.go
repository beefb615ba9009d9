package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
)

// autoUpstream is an HTTP upstream whose transport is auto: Streamable
// HTTP, unless the server answers a POST the way a 2024-11-05 HTTP+SSE
// server does (400, 404 or 405 without a JSON-RPC error) and a GET of its
// URL opens an event stream whose first event is "endpoint" — the spec's
// backward-compatibility rule, which the run's own client follows too.
// The first POST answered 2xx settles Streamable HTTP for good; the first
// that finds an HTTP+SSE server settles that, and is itself answered
// through it.
type autoUpstream struct {
	streamable http.RoundTripper
	sse        *sseUpstream
	mode       atomic.Int32
}

// The modes of an autoUpstream.
const (
	modeUnknown int32 = iota
	modeStreamable
	modeSSE
)

// RoundTrip forwards req over the transport settled so far, or finds it.
func (a *autoUpstream) RoundTrip(req *http.Request) (*http.Response, error) {
	switch a.mode.Load() {
	case modeStreamable:
		return a.streamable.RoundTrip(req)
	case modeSSE:
		return a.sse.RoundTrip(req)
	}
	if req.Method != http.MethodPost || req.Body == nil {
		return a.streamable.RoundTrip(req)
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, MaxBody+1))
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read forwarded request: %w", err)
	}
	again := func() *http.Request {
		r := req.Clone(req.Context())
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		return r
	}
	resp, err := a.streamable.RoundTrip(again())
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
	default:
		if resp.StatusCode/100 == 2 {
			a.mode.CompareAndSwap(modeUnknown, modeStreamable)
		}
		return resp, nil
	}
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxUpPostAnswer))
	resp.Body.Close()
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(answer)), int64(len(answer))
	var e struct {
		Error *struct {
			Code *int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(answer, &e) == nil && e.Error != nil && e.Error.Code != nil {
		return resp, nil // a Streamable server's own error
	}
	s, err := a.sse.open(req.Context(), req.Header, false)
	if err != nil {
		return resp, nil // not HTTP+SSE either: the server's answer stands
	}
	s.close()
	a.mode.Store(modeSSE)
	return a.sse.RoundTrip(again())
}
