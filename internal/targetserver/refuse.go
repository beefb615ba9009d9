package targetserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

// limits reports whether any limit applies to tools/call: a rate limit, a
// concurrency cap or workers.
func (s *Server) limits() bool {
	return s.limiter != nil || s.slots != nil || s.workers != nil
}

// refusedMessage is the message of a refused call: the JSON-RPC error's,
// or the text of the isError result with the hint in it.
const refusedMessage = "rate limit exceeded"

// refusedText is the text of a tool_message refusal: the message, with
// the retry hint when there is one.
func refusedText(ra int, hint bool) string {
	if !hint {
		return refusedMessage
	}
	return fmt.Sprintf("%s (retry after %ds)", refusedMessage, ra)
}

// refuseHTTP answers a refused tools/call with the rate_limit_signal knob's
// signal: 429 (auto) or 503 with a JSON-RPC error body, 200 with a
// JSON-RPC error carrying data.retryAfter (rpc_code), or 200 with an
// isError result (tool_message). Retry-After is sent with every signal
// when there is a hint.
func (s *Server) refuseHTTP(w http.ResponseWriter, id json.RawMessage, modern bool, ra int, hint bool, wait time.Duration) {
	s.refuseHTTPAs(w, s.cfg.Enum("rate_limit_signal"), id, modern, ra, hint, wait)
}

// refuseHTTPAs is refuseHTTP with the signal given.
func (s *Server) refuseHTTPAs(w http.ResponseWriter, signal string, id json.RawMessage, modern bool, ra int, hint bool, wait time.Duration) {
	status := http.StatusTooManyRequests
	code := int64(s.cfg.RateLimitCodeOrDefault())
	var body []byte
	switch signal {
	case knobs.SignalHTTP503:
		status = http.StatusServiceUnavailable
		body, _ = rpcmsg.ErrorResponse(id, code, refusedMessage, nil)
	case knobs.SignalRPCCode:
		status = http.StatusOK
		var data any
		if hint {
			data = map[string]int{"retryAfter": ra}
		}
		body, _ = rpcmsg.ErrorResponse(id, code, refusedMessage, data)
	case knobs.SignalToolMessage:
		status = http.StatusOK
		result := map[string]any{"content": []any{map[string]any{"type": "text", "text": refusedText(ra, hint)}}, "isError": true}
		if modern {
			result["resultType"] = "complete"
		}
		body, _ = rpcmsg.Result(id, result)
	default:
		body, _ = rpcmsg.ErrorResponse(id, code, refusedMessage, nil)
	}
	w.Header().Set("Content-Type", "application/json")
	if hint {
		w.Header().Set("Retry-After", strconv.Itoa(ra))
	}
	s.rateLimitHeaders(w.Header(), wait)
	w.WriteHeader(status)
	w.Write(body)
}

// rateLimitHeaders adds the rate_limit_headers knob's claim to a refused
// call's answer: the rate limit's N per period (twice N when wrong), none
// left, and the wait (whole seconds rounded up; a concurrency cap's
// refusal, which has no wait, gets none).
func (s *Server) rateLimitHeaders(h http.Header, wait time.Duration) {
	claim, r := s.cfg.Enum("rate_limit_headers"), s.cfg.RateLimit
	if claim == knobs.HeadersNone || r.IsZero() {
		return
	}
	n := r.Freq
	if claim == knobs.HeadersWrong {
		n *= 2
	}
	h.Set("RateLimit-Limit", strconv.Itoa(n))
	h.Set("RateLimit-Policy", fmt.Sprintf("%d;w=%s", n, strconv.FormatFloat(r.Per.Seconds(), 'f', -1, 64)))
	h.Set("RateLimit-Remaining", "0")
	if wait > 0 {
		h.Set("RateLimit-Reset", strconv.Itoa(retryAfterSeconds(wait)))
	}
}

// refuseStdio is the answer to a refused tools/call on stdio: a JSON-RPC
// error (code rate_limit_code, data.retryAfter when there is a hint), or
// an isError result with the tool_message signal.
func (s *Server) refuseStdio(ra int, hint bool) (mcp.Result, error) {
	if s.cfg.Enum("rate_limit_signal") == knobs.SignalToolMessage {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: refusedText(ra, hint)}}}, nil
	}
	var data json.RawMessage
	if hint {
		data, _ = json.Marshal(map[string]int{"retryAfter": ra})
	}
	return nil, &jsonrpc.Error{Code: int64(s.cfg.RateLimitCodeOrDefault()), Message: refusedMessage, Data: data}
}

// delayRefusal burns CPU for the refusal_work knob's time, then holds a
// refused call for the refusal_delay knob's time (each until ctx ends,
// when the client went away).
func (s *Server) delayRefusal(ctx context.Context) {
	if d := s.cfg.RefusalWork; d > 0 {
		var sink uint64
		for end := time.Now().Add(d); time.Now().Before(end) && ctx.Err() == nil; {
			sink += Spin(min(time.Until(end), burnSlice))
		}
		s.refusalSink.Add(sink)
	}
	if d := s.cfg.RefusalDelay; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
}
