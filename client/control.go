package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Control requests (discover, initialize, tools/list, CallTool) wait for
// their answer; when none comes, their error says why in words a person
// can act on: how long was waited, which HTTP status came from where.

// rawResponse is what a control request got back.
type rawResponse struct {
	status     int
	result     []byte
	rpcErr     *RPCError
	err        error // transport error
	violations []string
	endpoint   string    // the URL asked, for messages (HTTP only)
	at         time.Time // when the answer (result or error) was read
}

// noAnswerError is a control request whose context ended before the
// answer came: a timeout, or an interruption (Ctrl-C).
type noAnswerError struct {
	after time.Duration
	cause error // context.DeadlineExceeded or context.Canceled
}

func (e *noAnswerError) Error() string {
	if errors.Is(e.cause, context.DeadlineExceeded) {
		return "no answer: timed out after " + e.after.String()
	}
	return "no answer: interrupted after " + e.after.String()
}

func (e *noAnswerError) Unwrap() error { return e.cause }

// boundKey is the context key of a bound that WithBound set.
type boundKey struct{}

// bound is a timeout as it was configured, and the deadline it made.
type bound struct {
	d        time.Duration
	deadline time.Time
}

// WithBound is context.WithTimeout(ctx, d) for control requests, which
// remembers d: when a request times out on it, its error names d, the
// bound as configured, not the slightly shorter time left when the
// request started. A command's overall bound (init's --timeout) uses it
// so that a request ended by it says so.
func WithBound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	parent, hasParent := ctx.Deadline()
	ctx, cancel := context.WithTimeout(ctx, d)
	deadline, _ := ctx.Deadline()
	if hasParent && parent.Equal(deadline) {
		return ctx, cancel // the parent's earlier deadline is the one in force
	}
	return context.WithValue(ctx, boundKey{}, bound{d: d, deadline: deadline}), cancel
}

// givenTime is how long a control request that started at start was
// given when its context's deadline ended it: the bound WithBound set,
// else the time from start to the deadline.
func givenTime(ctx context.Context, start, deadline time.Time) time.Duration {
	if b, ok := ctx.Value(boundKey{}).(bound); ok && b.deadline.Equal(deadline) {
		return b.d
	}
	return deadline.Sub(start)
}

// timedOut reports whether err is a control request that timed out (not
// one that was interrupted).
func timedOut(err error) bool {
	var na *noAnswerError
	return errors.As(err, &na) && errors.Is(na.cause, context.DeadlineExceeded)
}

// roundTrip sends a control request (discover, initialize, tools/list) and
// waits for its answer, bounded by ctx. name is the request's Mcp-Name (the
// tool of a tools/call), or "".
func (c *Client) roundTrip(ctx context.Context, method, name string, members []byte, o metaOptions) rawResponse {
	return c.roundTripHeaders(ctx, method, name, members, o, nil)
}

// roundTripHeaders is roundTrip with extra header lines (Mcp-Param-*).
func (c *Client) roundTripHeaders(ctx context.Context, method, name string, members []byte, o metaOptions, headers []byte) rawResponse {
	var mu sync.Mutex // late events may still arrive after the wait (stdio)
	var out rawResponse
	if h, ok := c.tr.(*httpTransport); ok {
		out.endpoint = h.display
	}
	call := c.newCall(method, name, ObserverFunc(func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		switch ev.Kind {
		case EvHeaders:
			out.status = ev.Status
		case EvResult:
			if out.result == nil && out.rpcErr == nil {
				out.result = append([]byte(nil), ev.Raw...)
				c.checkInputMethod(method, out.result)
				out.at = ev.At
			}
		case EvRPCError:
			if out.result == nil && out.rpcErr == nil {
				out.at = ev.At
				out.rpcErr = &RPCError{Code: ev.Code, Message: unescape(ev.Message), Data: append(json.RawMessage(nil), ev.Raw...)}
			}
		case EvViolation:
			out.violations = append(out.violations, ev.Violation.String()+": "+ev.Detail)
		case EvEnd:
			if out.result == nil && out.rpcErr == nil && out.err == nil {
				out.err = ev.Err
				if out.err == nil {
					out.err = errStreamEnded
				}
			}
		}
	}))
	call.raw = true
	call.headers = headers
	call.body = c.appendRequest(nil, call.id, method, members, o)
	start := time.Now()
	if err := c.tr.start(ctx, call); err != nil {
		mu.Lock()
		defer mu.Unlock()
		out.err = err
		return out
	}
	stop := context.AfterFunc(ctx, func() {
		reason := "timed out"
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			reason = "interrupted"
		}
		_ = call.Cancel("mcpchaos: "+method+" "+reason, false)
	})
	call.Wait()
	stop()
	mu.Lock()
	defer mu.Unlock()
	if out.result == nil && out.rpcErr == nil && ctx.Err() != nil {
		// Whatever ended the call, it was our cancel at the context's end.
		after := time.Since(start)
		if deadline, ok := ctx.Deadline(); ok && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			after = givenTime(ctx, start, deadline)
		}
		out.err = &noAnswerError{after: after.Round(time.Millisecond), cause: ctx.Err()}
	}
	res := out
	res.violations = append([]string(nil), out.violations...)
	return res
}

// failure is the error of a control request that got no usable answer.
func (r rawResponse) failure(method string) error {
	bad := r.status != 0 && (r.status < 200 || r.status > 299)
	switch {
	case r.rpcErr != nil && bad:
		return fmt.Errorf("%s: %s: %w", method, r.statusText(), r.rpcErr)
	case r.rpcErr != nil:
		return fmt.Errorf("%s: %w", method, r.rpcErr)
	case bad:
		return fmt.Errorf("%s: %s", method, r.statusText())
	case r.err != nil:
		return fmt.Errorf("%s: %w", method, r.err)
	}
	return nil
}

// statusText names an HTTP status and where it came from, with a hint
// for the statuses a wrong configuration gives.
func (r rawResponse) statusText() string {
	s := fmt.Sprintf("HTTP status %d", r.status)
	if t := http.StatusText(r.status); t != "" {
		s += " " + t
	}
	if r.endpoint != "" {
		s += " from " + r.endpoint
	}
	switch r.status {
	case http.StatusNotFound:
		s += " (is the path right?)"
	case http.StatusUnauthorized, http.StatusForbidden:
		s += " (does it need credentials, such as an Authorization header?)"
	}
	return s
}
