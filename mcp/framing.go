package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// errOversize reports a message over the configured maximum size.
type errOversize struct{ max int }

func (e errOversize) Error() string {
	return fmt.Sprintf("message exceeds the maximum of %d bytes", e.max)
}

// IsOversize reports whether err is the error for a message over the
// configured maximum size.
func IsOversize(err error) bool {
	var e errOversize
	return errors.As(err, &e)
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
	line, err := r.br.ReadSlice('\n')
	switch {
	case err == nil, err == io.EOF && len(line) > 0:
		out := trimEOL(line)
		if len(out) <= r.max {
			return out, nil
		}
		// A whole line over the limit that fitted in the read buffer.
		r.long = append(r.long[:0], out...)
		return r.oversize(discard, prefix, nil, err)
	case err != bufio.ErrBufferFull:
		return nil, err
	}
	r.long = append(r.long[:0], line...)
	for {
		line, err = r.br.ReadSlice('\n')
		if len(r.long)+len(line) > r.max+2 { // room for the line ending
			return r.oversize(discard, prefix, line, err)
		}
		r.long = append(r.long, line...)
		switch {
		case err == nil, err == io.EOF && len(r.long) > 0:
			out := trimEOL(r.long)
			if len(out) > r.max {
				r.long = out
				return r.oversize(discard, prefix, nil, err)
			}
			if cap(r.long) > 1<<20 {
				r.long = nil // do not keep a huge buffer alive
			}
			return out, nil
		case err != bufio.ErrBufferFull:
			return nil, err
		}
	}
}

// oversize handles a line over the limit: without discard it stops at
// once; with discard it reads on to the end of the line, keeping only a
// prefix, so a 1 GiB line costs no more memory than a short one.
func (r *lineReader) oversize(discard bool, prefix int, line []byte, err error) ([]byte, error) {
	over := errOversize{r.max}
	if len(r.long) > prefix {
		r.long = r.long[:prefix]
	}
	if !discard {
		return r.long, over
	}
	for err == bufio.ErrBufferFull {
		_, err = r.br.ReadSlice('\n')
	}
	if err != nil && err != io.EOF {
		return r.long, err
	}
	_ = line
	return r.long, over
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// sseReader reads the data of Server-Sent Events. Comment lines and the
// event, id and retry fields are skipped; events without data (such as a
// 2025-11-25 priming event) are not returned. Memory is bounded by max.
type sseReader struct {
	lines lineReader
	data  []byte
}

func newSSEReader(br *bufio.Reader, max int) *sseReader {
	return &sseReader{lines: lineReader{br: br, max: max}}
}

func (r *sseReader) reset(br *bufio.Reader) {
	r.lines.br = br
	r.data = r.data[:0]
	if cap(r.data) > 64<<10 {
		r.data = nil
	}
}

// next returns the data of the next event, valid until the next call.
func (r *sseReader) next() ([]byte, error) {
	r.data = r.data[:0]
	has := false
	for {
		line, err := r.lines.next(false, 0)
		if err != nil {
			if err == io.EOF && has && len(r.data) > 0 {
				// A stream that ends without the final blank line still
				// delivered its last event.
				return r.data, nil
			}
			return nil, err
		}
		if len(line) == 0 {
			if has && len(r.data) > 0 {
				return r.data, nil
			}
			has = false
			r.data = r.data[:0]
			continue
		}
		if line[0] == ':' {
			continue // comment or keep-alive
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		if string(name) != "data" {
			continue
		}
		if has {
			r.data = append(r.data, '\n')
		}
		if len(r.data)+len(value) > r.lines.max {
			return nil, errOversize{r.lines.max}
		}
		r.data = append(r.data, value...)
		has = true
	}
}
