package mcp

import (
	"bufio"
	"io"
)

// SSEReader reads the data of Server-Sent Events from a stream with the
// bounds of the client's own reader (see sseReader): one event's data is
// at most max bytes, a line without data at most 64 KiB. The proxy reads
// an upstream's streams with it.
type SSEReader struct{ r *sseReader }

// NewSSEReader reads events from rd, each event's data bounded by max.
func NewSSEReader(rd io.Reader, max int) *SSEReader {
	return &SSEReader{r: newSSEReader(bufio.NewReaderSize(rd, 32<<10), max)}
}

// Next returns the data of the next event, valid until the next call;
// io.EOF at the end of the stream, and an error IsOversize reports for
// data over the bound.
func (r *SSEReader) Next() ([]byte, error) { return r.r.next() }
