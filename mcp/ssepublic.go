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

// LineReader reads newline-delimited JSON-RPC messages (stdio framing)
// with the bounds of the client's own reader: a line over max bytes is an
// error IsOversize reports, its rest skipped without being kept, and
// reading goes on.
type LineReader struct{ r lineReader }

// NewLineReader reads lines from rd, each bounded by max.
func NewLineReader(rd io.Reader, max int) *LineReader {
	return &LineReader{r: lineReader{br: bufio.NewReaderSize(rd, 64<<10), max: max}}
}

// Next returns the next line without its line ending, valid until the
// next call; io.EOF at the end.
func (r *LineReader) Next() ([]byte, error) { return r.r.next(true, 0) }
