package client

import (
	"bufio"
	"io"
	"sync"
)

// maxSSELine bounds an SSE line that carries no data: a comment, or an
// event, id, retry or unknown field. In a real stream such lines are short
// (an event id is a few hundred bytes at most); a longer one is a
// protocol error, found without keeping any of it. Only data is kept, up
// to the message maximum, since one JSON-RPC message may be large.
const maxSSELine = 64 << 10

// sseReader reads the data of Server-Sent Events straight from a bufio
// reader (or a streamReader, on HTTP/2): a line is never gathered whole. Comment lines and fields other
// than data are skipped as they stream past; events without data (such as
// a 2025-11-25 priming event) are not returned. A connection's memory is
// its bufio buffer plus one event's data, which is bounded by max.
type sseReader struct {
	br      lineSource
	max     int // bound on one event's data
	maxLine int // bound on a line without data
	data    []byte
	box     *[]byte // data's holder in sseDataBufs (shed)
	// event is the name of the event next returned ("" for the default,
	// message), kept when its line fits in the read buffer.
	event []byte
}

func newSSEReader(br lineSource, max int) *sseReader {
	return &sseReader{br: br, max: max, maxLine: min(max, maxSSELine)}
}

func (r *sseReader) reset(br lineSource) {
	r.br = br
	r.data = r.data[:0]
	if cap(r.data) > keepMax {
		r.data = nil
	}
}

// sseDataBuf is the size of the data buffers an event stream that waits
// gives back (shed): the smallest that grow makes.
const sseDataBuf = 512

var sseDataBufs = sync.Pool{New: func() any { b := make([]byte, 0, sseDataBuf); return &b }}

// shed gives the data buffer of the last event back to sseDataBufs, to be
// taken again by next: an HTTP/2 stream's reader sheds it while it waits
// for its next message, so open calls do not each keep one. The pool's
// holders travel with their buffers: neither allocates again.
func (r *sseReader) shed() {
	if cap(r.data) != sseDataBuf {
		return
	}
	if r.box == nil {
		r.box = new([]byte)
	}
	*r.box = r.data[:0]
	sseDataBufs.Put(r.box)
	r.box, r.data = nil, nil
}

// next returns the data of the next event, valid until the next call.
func (r *sseReader) next() ([]byte, error) {
	if cap(r.data) > keepMax {
		r.data = nil // grown for one large event: do not keep it
	}
	if r.data == nil && r.box == nil {
		if b, ok := sseDataBufs.Get().(*[]byte); ok {
			r.box, r.data = b, (*b)[:0]
		}
	}
	r.data = r.data[:0]
	r.event = r.event[:0]
	has := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		if len(chunk) == 0 || err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			if err == io.EOF && has && len(r.data) > 0 {
				// A stream that ends without the final blank line still
				// delivered its last event.
				return r.data, nil
			}
			return nil, err
		}
		more := err == bufio.ErrBufferFull // the line goes on past chunk
		if !more && len(trimEOL(chunk)) == 0 {
			if has && len(r.data) > 0 {
				return r.data, nil
			}
			has = false
			r.data = r.data[:0]
			r.event = r.event[:0]
			continue
		}
		// The field name is in the first chunk unless it is longer than the
		// read buffer, and then it is not "data".
		value, isData := dataValue(chunk, more)
		if !isData {
			if name, ok := eventName(chunk, more); ok {
				r.event = append(r.event[:0], name...)
			}
			if err := r.skipLine(chunk, err); err != nil {
				return nil, err
			}
			continue
		}
		if has {
			if len(r.data)+1 > r.max {
				return nil, errOversize{max: r.max, what: "SSE event data"}
			}
			r.data = append(grow(r.data, 1, r.max+2), '\n')
		}
		has = true
		if err := r.appendValue(value, err); err != nil {
			return nil, err
		}
	}
}

// eventName returns the value of an event field whose line is all of
// chunk.
func eventName(chunk []byte, more bool) ([]byte, bool) {
	const name = "event:"
	if more || len(chunk) < len(name) || string(chunk[:len(name)]) != name {
		return nil, false
	}
	v := trimEOL(chunk[len(name):])
	if len(v) > 0 && v[0] == ' ' {
		v = v[1:]
	}
	return v, true
}

// dataValue returns the value of a data field whose line starts with
// chunk, or false when the line is not a data field.
func dataValue(chunk []byte, more bool) ([]byte, bool) {
	const name = "data"
	if len(chunk) < len(name) || string(chunk[:len(name)]) != name {
		return nil, false
	}
	rest := chunk[len(name):]
	switch {
	case len(rest) > 0 && rest[0] == ':':
		rest = rest[1:]
		if len(rest) > 0 && rest[0] == ' ' {
			rest = rest[1:]
		}
		return rest, true
	case !more && len(trimEOL(rest)) == 0:
		return rest, true // "data" alone: a data field with an empty value
	}
	return nil, false
}

// appendValue appends a data value to the event's data: first, the rest
// of the first chunk, then the rest of the line as it streams in. err is
// the first chunk's read error. The data may hold at most max bytes once
// the line ending is trimmed.
func (r *sseReader) appendValue(first []byte, err error) error {
	start := len(r.data)
	chunk := first
	limit := r.max + 2 // room for a line ending
	for {
		if len(r.data)+len(chunk) > limit {
			return errOversize{max: r.max, what: "SSE event data"}
		}
		r.data = append(grow(r.data, len(chunk), limit), chunk...)
		if err != bufio.ErrBufferFull {
			break
		}
		chunk, err = r.br.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return err
		}
	}
	// Trim the line ending, within this line's bytes only.
	if n := len(r.data); n > start && r.data[n-1] == '\n' {
		r.data = r.data[:n-1]
	}
	if n := len(r.data); n > start && r.data[n-1] == '\r' {
		r.data = r.data[:n-1]
	}
	if len(r.data) > r.max {
		return errOversize{max: r.max, what: "SSE event data"}
	}
	return nil
}

// skipLine reads past a line that carries no data, keeping none of it;
// first is its first chunk and err that chunk's read error. A line over
// maxLine bytes (without its line ending) is an error, found as soon as
// the line is known to be too long.
func (r *sseReader) skipLine(first []byte, err error) error {
	n := 0
	var b1, b2 byte // the line's last two bytes so far
	chunk := first
	for {
		n += len(chunk)
		switch len(chunk) {
		case 0:
		case 1:
			b2, b1 = b1, chunk[0]
		default:
			b2, b1 = chunk[len(chunk)-2], chunk[len(chunk)-1]
		}
		if err != bufio.ErrBufferFull {
			break
		}
		// The line so far may end in the '\r' of a CRLF whose '\n' is still
		// to come: n-1 bytes of it are content at least.
		if n-1 > r.maxLine {
			return errOversize{max: r.maxLine, what: "SSE line without data"}
		}
		chunk, err = r.br.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return err
		}
	}
	// Do not count the line ending, as trimEOL would remove it.
	switch {
	case b1 == '\n':
		n--
		if n > 0 && b2 == '\r' {
			n--
		}
	case b1 == '\r':
		n--
	}
	if n > r.maxLine {
		return errOversize{max: r.maxLine, what: "SSE line without data"}
	}
	return nil
}
