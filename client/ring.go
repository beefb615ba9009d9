package client

import "sync"

// ring keeps the last bytes written to it: a server's stderr, bounded.
type ring struct {
	mu   sync.Mutex
	buf  []byte
	next int
	full bool
}

func newRing(size int) *ring { return &ring{buf: make([]byte, size)} }

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	if len(p) >= len(r.buf) {
		copy(r.buf, p[len(p)-len(r.buf):])
		r.next, r.full = 0, true
		return n, nil
	}
	k := copy(r.buf[r.next:], p)
	if k < len(p) {
		copy(r.buf, p[k:])
		r.full = true
	}
	r.next = (r.next + len(p)) % len(r.buf)
	if r.next == 0 && len(p) > 0 {
		r.full = true
	}
	return n, nil
}

// bytes returns a copy of what the ring holds, oldest first.
func (r *ring) bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]byte(nil), r.buf[:r.next]...)
	}
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.next:]...)
	return append(out, r.buf[:r.next]...)
}
