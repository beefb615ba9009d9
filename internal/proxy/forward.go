package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// hopHeaders are not forwarded in either direction (RFC 9110 7.6.1), nor
// are Host and Content-Length, which the request or response sets anew.
var hopHeaders = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Connection": true, "Te": true, "Trailer": true,
	"Transfer-Encoding": true, "Upgrade": true, "Host": true, "Content-Length": true,
	"Proxy-Authorization": true, "Proxy-Authenticate": true,
}

// upstreamRequest builds the request forwarded for r: same method,
// query, headers (the proxy file's added) and body (r's own when body is
// nil), on ctx, so closing ctx closes the upstream request.
func (p *Proxy) upstreamRequest(ctx context.Context, r *http.Request, body []byte) (*http.Request, error) {
	u := *p.upstream
	u.RawQuery = r.URL.RawQuery
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	} else if r.Method == http.MethodPost {
		rd = r.Body
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), rd)
	if err != nil {
		return nil, fmt.Errorf("forward %s: %w", r.Method, err)
	}
	for k, vs := range r.Header {
		if !hopHeaders[k] {
			req.Header[k] = vs
		}
	}
	if p.file.Upstream != nil {
		for k, v := range p.file.Upstream.Headers {
			req.Header.Set(k, v)
		}
	}
	return req, nil
}

// forward passes a request that is not a call through to the upstream
// and its answer back, streamed as it comes (an SSE stream event by
// event). A client that goes away closes the upstream request.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, body []byte) {
	req, err := p.upstreamRequest(r.Context(), r, body)
	if err != nil {
		writeRPCError(w, http.StatusBadGateway, nil, -32603, err.Error())
		return
	}
	resp, err := p.client.Do(req)
	if err != nil {
		if r.Context().Err() == nil {
			writeRPCError(w, http.StatusBadGateway, nil, -32603, fmt.Sprintf("mcpchaos proxy: upstream %s: %v", p.Upstream(), err))
		}
		return
	}
	defer resp.Body.Close()
	copyResponse(w, resp)
}

// copyHeaders copies the headers that are not hop-by-hop.
func copyHeaders(dst, src http.Header, skip ...string) {
	for k, vs := range src {
		if !hopHeaders[k] && !contains(skip, k) {
			dst[k] = vs
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// copyResponse writes resp to w, flushing after every read so that an
// SSE stream reaches the client event by event. It returns the first
// read or write error other than the body's end.
func copyResponse(w http.ResponseWriter, resp *http.Response) error {
	copyHeaders(w.Header(), resp.Header)
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return fmt.Errorf("write to client: %w", werr)
			}
			if ferr := rc.Flush(); ferr != nil {
				return fmt.Errorf("flush to client: %w", ferr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read upstream: %w", err)
		}
	}
}
