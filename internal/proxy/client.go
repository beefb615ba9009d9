package proxy

import (
	"net"
	"net/http"
	"strings"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// maxIdentity bounds a client identity taken from a request's headers, so
// a hostile client cannot make every record and index entry large.
const maxIdentity = 256

// sseClientKey marks, in a request's context, the HTTP+SSE session whose
// message the request carries (ssebridge.go).
type sseClientKey struct{}

// clientOf names the client that sent r, the key of its records, its
// re-issues and its Retry-After: "sse:ID" for a message of an HTTP+SSE
// session (2024-11-05, the proxy's own session id); else "session:ID"
// when r carries an Mcp-Session-Id (the 2025 revisions); else "HEADER:VALUE" when the proxy
// file's clients.identity_header is set and r carries it; else the remote
// IP and the User-Agent, "IP UA". Each part is cut at 256 bytes.
func (p *Proxy) clientOf(r *http.Request) string {
	if id, ok := r.Context().Value(sseClientKey{}).(string); ok {
		return sseClient(id)
	}
	if s := r.Header.Get(vocab.HeaderSessionID); s != "" {
		return "session:" + cutIdentity(s)
	}
	if h := p.file.IdentityHeader; h != "" {
		if v := r.Header.Get(h); v != "" {
			return http.CanonicalHeaderKey(h) + ":" + cutIdentity(v)
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return cutIdentity(host) + " " + cutIdentity(r.UserAgent())
}

func cutIdentity(s string) string {
	if len(s) > maxIdentity {
		s = s[:maxIdentity]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// sseClient is the client key of HTTP+SSE session id: its records are
// kept under it (clientOf), and a cut of its stream ends them by it.
func sseClient(id string) string { return "sse:" + id }
