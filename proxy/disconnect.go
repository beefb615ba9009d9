package proxy

import (
	"fmt"
	"net/http"
	"time"

	"github.com/mcpchaos/mcpchaos/scenarios"
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

var disconnectKind = kind{name: "disconnect", timed: true, keys: []string{"mode"},
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
