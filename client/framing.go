package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// errOversize reports a message, or a line, over its maximum size.
type errOversize struct {
	max  int
	what string // "" is "message"
}

func (e errOversize) Error() string {
	what := e.what
	if what == "" {
		what = "message"
	}
	return fmt.Sprintf("%s exceeds the maximum of %d bytes", what, e.max)
}

// IsOversize reports whether err is the error for a message (or an SSE
// line) over its maximum size.
func IsOversize(err error) bool {
	var e errOversize
	return errors.As(err, &e)
}

// keepMax is the largest buffer a reader keeps between messages; a larger
// one, grown for one large message, is dropped after it.
const keepMax = 64 << 10

// grow returns b with room for n more bytes. It doubles, and goes
// straight to limit (which the caller has checked len(b)+n against) once
// past half of it, so growing to a large message allocates at most about
// twice the limit, not five times as append's gentler growth of large
// slices does.
func grow(b []byte, n, limit int) []byte {
	need := len(b) + n
	if need <= cap(b) {
		return b
	}
	c := max(2*cap(b), need, 512)
	if c > limit/2 {
		c = max(limit, need) // the next doubling would pass limit: go there at once
	}
	nb := make([]byte, len(b), c)
	copy(nb, b)
	return nb
}

// lineReader reads '\n'-terminated lines with bounded memory. Short lines
// come straight from the bufio buffer; long ones are gathered in long,
// which is reused.
type lineReader struct {
	br   *bufio.Reader
	long []byte
	max  int
}

// next returns the next line without its line ending. The slice is valid
// until the next call. A line longer than max is an errOversize; with
// discard the rest of that line is skipped so reading can go on, and the
// returned slice holds the line's first bytes (at most prefix of them).
func (r *lineReader) next(discard bool, prefix int) ([]byte, error) {
	if cap(r.long) > keepMax {
		r.long = nil // do not keep a huge buffer alive
	}
	line, err := r.br.ReadSlice('\n')
	switch {
	case err == nil, err == io.EOF && len(line) > 0:
		out := trimEOL(line)
		if len(out) <= r.max {
			return out, nil
		}
		// A whole line over the limit that fitted in the read buffer.
		return r.oversize(discard, prefix, out, nil)
	case err != bufio.ErrBufferFull:
		return nil, err
	}
	limit := r.max + 2 // room for the line ending
	r.long = append(grow(r.long[:0], len(line), limit), line...)
	for {
		line, err = r.br.ReadSlice('\n')
		if len(r.long)+len(line) > limit {
			return r.oversize(discard, prefix, r.long, err)
		}
		r.long = append(grow(r.long, len(line), limit), line...)
		switch {
		case err == nil, err == io.EOF && len(r.long) > 0:
			out := trimEOL(r.long)
			if len(out) > r.max {
				return r.oversize(discard, prefix, out, nil)
			}
			return out, nil
		case err != bufio.ErrBufferFull:
			return nil, err
		}
	}
}

// oversize handles a line over the limit, of which head holds the first
// bytes: without discard it stops at once; with discard it reads on to the
// end of the line without keeping any of it, so a 1 GiB line costs no
// more memory than a short one. err is the error of the last read (nil
// when the line has ended). The returned prefix is a copy in a small
// buffer: the large one is not kept.
func (r *lineReader) oversize(discard bool, prefix int, head []byte, err error) ([]byte, error) {
	over := errOversize{max: r.max}
	head = head[:min(len(head), prefix)]
	if cap(r.long) > keepMax {
		head = append([]byte(nil), head...)
		r.long = nil
	} else {
		head = append(r.long[:0], head...)
		r.long = head
	}
	if !discard {
		return head, over
	}
	for err == bufio.ErrBufferFull {
		_, err = r.br.ReadSlice('\n')
	}
	if err != nil && err != io.EOF {
		return head, err
	}
	return head, over
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}
