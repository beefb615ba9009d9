package client

import (
	"errors"
	"unicode/utf8"

	"github.com/mcpchaos/mcpchaos/internal/termsafe"
)

// protocolError ends a call because the server broke the protocol on it:
// its answer was not a JSON-RPC message, was not valid UTF-8, was not a
// tools/call result, or its stream ended after messages that were none of
// the call's answer. It is the server's fault, not the transport's.
type protocolError struct {
	msg string
	err error // what it wraps, if anything (errStreamEnded)
}

func (e *protocolError) Error() string { return e.msg }
func (e *protocolError) Unwrap() error { return e.err }

// IsProtocolError reports whether a call ended because the server broke
// the protocol (see Event.Err), rather than because the transport failed.
// An oversize message is a protocol error too.
func IsProtocolError(err error) bool {
	var p *protocolError
	return errors.As(err, &p) || IsOversize(err)
}

// errInvalidUTF8 is a message that is well-formed JSON-RPC but for text
// that is not valid UTF-8: JSON must be UTF-8 (RFC 8259), so it is not a
// JSON-RPC message, but its id still says whose answer it was.
var errInvalidUTF8 = errors.New("message is not valid UTF-8")

// quoteFew quotes at most n bytes of b for an error message, control
// characters escaped (termsafe): the bytes are the server's.
func quoteFew(b []byte, n int) string {
	if len(b) <= n {
		return "`" + termsafe.Escape(string(b)) + "`"
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return "`" + termsafe.Escape(string(b[:n])) + "…`"
}
