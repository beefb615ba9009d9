package client

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
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

// Event is the name of the event Next last returned ("" for the default,
// message), valid until the next call.
func (r *SSEReader) Event() string { return string(r.r.event) }

// SSEEndpoint checks the first event of a 2024-11-05 HTTP+SSE stream
// opened at base: it must be an "endpoint" event whose data is the URL
// (absolute, or relative to base) that messages are POSTed to, on base's
// origin. The client's transport and the proxy's upstream both use it.
func SSEEndpoint(base *url.URL, event string, data []byte) (*url.URL, error) {
	if event != "endpoint" {
		return nil, fmt.Errorf("the first event is %q, not \"endpoint\"", event)
	}
	ep, err := base.Parse(string(data))
	if err != nil {
		return nil, fmt.Errorf("endpoint %q: %v", clipBytes(data), err)
	}
	if ep.Scheme != base.Scheme || ep.Host != base.Host {
		return nil, fmt.Errorf("endpoint %q is on another origin than %s", ep.String(), base.Host)
	}
	return ep, nil
}

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
// next call; io.EOF at the end. For a line over the bound it returns the
// line's first bytes (at most oversizeHead of them, for OversizeID) and
// the error IsOversize reports.
func (r *LineReader) Next() ([]byte, error) { return r.r.next(true, oversizeHead) }

// oversizeHead is how much of an oversize line is kept to read its id
// from (as the client's own stdio reader does).
const oversizeHead = 4096

// OversizeID reads the top-level numeric "id" of a message from its first
// bytes (an oversize line's head, from Next), when the id comes early
// enough to be read.
func OversizeID(head []byte) (int64, bool) {
	var sc scanner
	return prefixID(&sc, head)
}
