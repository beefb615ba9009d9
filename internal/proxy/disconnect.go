package proxy

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// disconnect cuts the client's connection `after` the request arrived
// (default at once), in the middle of the call's stream: with a FIN
// (mode fin, the default) or a reset (mode rst: SO_LINGER 0). The
// upstream request is closed with it, which is the 2026 cancel toward the
// server.
//
// A correct client reports the call as failed (it got no answer) and, if
// it retries, re-issues it with a new request id; it does not hang on the
// dead stream. The proxy records the call as disconnected; a later call
// with the same tool and arguments is recorded as its re-issue.
type disconnect struct{ rst bool }

var disconnectKind = kind{name: faultkinds.Disconnect, timed: true, keys: []string{"mode"},
	build: func(r *scenarios.Reader) effect {
		return disconnect{rst: r.Enum("mode", "fin", "fin", "rst") == "rst"}
	}}

func (f disconnect) apply(p *plan, after time.Duration) {
	p.disconnect = true
	p.disconnectRST = f.rst
	p.disconnectAfter = after
}

// cut takes the client's connection from the HTTP server and closes it,
// resetting it when rst is set.
func cut(w http.ResponseWriter, rst bool) error {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return fmt.Errorf("disconnect: take the connection: %w", err)
	}
	if tc, ok := conn.(interface{ SetLinger(int) error }); ok && rst { // a TCP connection, or an HTTP+SSE session's stream
		if err := tc.SetLinger(0); err != nil {
			conn.Close()
			return fmt.Errorf("disconnect: set SO_LINGER 0: %w", err)
		}
	}
	if err := conn.Close(); err != nil {
		return fmt.Errorf("disconnect: close: %w", err)
	}
	return nil
}

// earlyCut is a disconnect whose moment may come before the upstream's
// answer has begun: a target that answers with one JSON body sends its
// headers only with the answer, so a cut timed from the answer's headers
// (as rewrite times the others) would come only once the answer is in.
// At its moment it cancels the upstream round trip (closing the upstream
// request, the 2026 cancel toward the server); the handler, then back
// from the round trip, cuts the client's connection (forwardCall). A
// disconnect at once (after 0) is not armed here: it cuts as soon as the
// forwarded request is answered, so that the upstream gets the call.
type earlyCut struct{ t *time.Timer }

// armEarlyCut arms pl's disconnect, if it has one with a moment, to
// cancel the upstream round trip at start plus its after.
func armEarlyCut(pl *plan, start time.Time, cancel func()) earlyCut {
	if !pl.disconnect || pl.disconnectAfter <= 0 {
		return earlyCut{}
	}
	return earlyCut{time.AfterFunc(pl.disconnectAfter-time.Since(start), cancel)}
}

// fired disarms the cut and reports whether its moment came first: then
// the round trip was (or is being) cancelled, and the call is the cut's.
func (e earlyCut) fired() bool { return e.t != nil && !e.t.Stop() }

// cutNow records the call disconnected, then cuts the client's
// connection: recorded first, so the client's next call finds this one
// settled. A failed cut is recorded as the call's failure.
func (p *Proxy) cutNow(w http.ResponseWriter, oc *openCall, rst bool) (reaction, how string, at time.Time) {
	p.rec.end(oc, reactDisconnected, "", time.Now())
	if err := cut(w, rst); err != nil {
		p.rec.fail(oc, err, time.Now())
	}
	return reactDisconnected, "", time.Now()
}

// forwardCall sends the call upstream and returns the answer's start.
// settled says the call's disconnect came while the round trip was in flight
// (armEarlyCut): the round trip was cancelled, what came of it closed,
// and the client's connection cut; the call is settled.
func (p *Proxy) forwardCall(ctx context.Context, w http.ResponseWriter, r *http.Request, body []byte,
	pl *plan, oc *openCall, start time.Time, cancel func()) (resp *http.Response, settled bool, err error) {
	up, err := p.upstreamRequest(ctx, r, body)
	if err != nil {
		return nil, false, err
	}
	early := armEarlyCut(pl, start, cancel)
	resp, err = p.client.Do(up)
	if early.fired() {
		if err == nil {
			resp.Body.Close() // the answer's headers beat the cut by a hair: it cuts all the same
		}
		p.cutNow(w, oc, pl.disconnectRST)
		return nil, true, nil
	}
	return resp, false, err
}
