package client

import (
	"net"
	"time"
)

// aLongTimeAgo is a deadline already past: setting it unblocks a read or
// a write at once.
var aLongTimeAgo = time.Unix(1, 0)

// writeWatching writes a request with a large body (headers, then body,
// without copying the body: one writev on TCP) while watching the
// connection for an early answer, as net/http's transport does.
//
// A server may refuse a large body after reading part of it (413 from a
// body limit) and then stop reading. Written blindly, the rest of the body
// would block until the write deadline while the answer sits unread, or
// until the server's reset discards it. Watched, the first byte of an
// answer stops the write: the request counts as sent, the answer is read
// as usual, and the connection is not reused (conn.partial).
func (conn *httpConn) writeWatching(head, body []byte) error {
	conn.partial = false
	answered := make(chan error, 1)
	go func() {
		_, err := conn.br.Peek(1) // buffers what it reads for readHeaders
		if err == nil {
			_ = conn.nc.SetWriteDeadline(aLongTimeAgo) // stop the write
		}
		answered <- err
	}()
	bufs := net.Buffers{head, body}
	_, werr := bufs.WriteTo(conn.nc)
	// Stop the watcher (it may have an answer already) and wait for it,
	// so the reader is never shared. A timeout ends its Peek without
	// losing bytes or leaving the reader broken.
	_ = conn.nc.SetReadDeadline(aLongTimeAgo)
	perr := <-answered
	_ = conn.nc.SetReadDeadline(time.Time{})
	if perr == nil && conn.br.Buffered() > 0 {
		conn.partial = werr != nil
		return nil // answered: read it, whether or not the body got out
	}
	return werr
}
