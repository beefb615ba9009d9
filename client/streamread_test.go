package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// chunkSource hands out a stream in pieces, as HTTP/2 DATA frames arrive:
// each Read returns at most the next piece (sizes cycle through sizes). A
// read of no bytes stands for the wait for data: it checks that the
// reader holds no buffer then (when watch is set), and returns nothing.
type chunkSource struct {
	rest  []byte
	sizes []int
	i     int
	watch *streamReader
	held  int // waits during which watch held a buffer
	waits int
	err   error // returned at the end (io.EOF when nil)
}

func (c *chunkSource) Read(p []byte) (int, error) {
	if len(p) == 0 {
		c.waits++
		if c.watch != nil && c.watch.buf != nil {
			c.held++
		}
		if len(c.rest) == 0 {
			return 0, c.end()
		}
		return 0, nil
	}
	if len(c.rest) == 0 {
		return 0, c.end()
	}
	n := len(c.rest)
	if len(c.sizes) > 0 {
		n = min(n, c.sizes[c.i%len(c.sizes)])
		c.i++
	}
	n = copy(p, c.rest[:n])
	c.rest = c.rest[n:]
	return n, nil
}

func (c *chunkSource) end() error {
	if c.err != nil {
		return c.err
	}
	return io.EOF
}

// readLines reads every line through ReadSlice, joining the pieces of a
// line longer than the buffer, until an error.
func readLines(r interface {
	ReadSlice(byte) ([]byte, error)
}) ([]string, error) {
	var lines []string
	var cur []byte
	for {
		b, err := r.ReadSlice('\n')
		cur = append(cur, b...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(cur) > 0 {
			lines = append(lines, string(cur))
			cur = nil
		}
		if err != nil {
			return lines, err
		}
	}
}

func TestStreamReaderReadsLikeBufio(t *testing.T) {
	long := strings.Repeat("x", 40) + "\n"
	tests := []struct {
		name   string
		stream string
		size   int
		sizes  []int
	}{
		{"whole lines, one a read", "a\nbb\nccc\n", 16, []int{2, 3, 4}},
		{"lines split across reads", "event: message\ndata: {}\n\n", 16, []int{1, 5, 3}},
		{"a line longer than the buffer", "s\n" + long + "t\n", 16, []int{7}},
		{"longer than the buffer, one byte a read", long + long, 8, []int{1}},
		{"no newline at the end", "a\nrest", 16, []int{3}},
		{"everything in one read", "a\nb\n\nc\n", 64, nil},
		{"empty", "", 16, nil},
		{"the pooled buffer", strings.Repeat("data: "+long, 200), 0, []int{1000, 5000, 17}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &chunkSource{rest: []byte(tt.stream), sizes: tt.sizes}
			sr := &streamReader{size: tt.size}
			sr.reset(src)
			src.watch = sr
			got, err := readLines(sr)
			if err != io.EOF {
				t.Fatalf("ended with %v, want io.EOF", err)
			}
			bufSize := tt.size
			if bufSize == 0 {
				bufSize = streamReadSize
			}
			want, _ := readLines(bufio.NewReaderSize(strings.NewReader(tt.stream), bufSize))
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("lines %q, want %q", got, want)
			}
			if src.held != 0 {
				t.Errorf("held a buffer in %d of %d waits for data, want none", src.held, src.waits)
			}
			sr.release()
			if sr.Buffered() != 0 || sr.buf != nil {
				t.Errorf("after release: %d bytes buffered, buffer %v", sr.Buffered(), sr.buf != nil)
			}
		})
	}
}

// TestStreamReaderError: an error of the stream comes after the bytes
// received before it, and stays.
func TestStreamReaderError(t *testing.T) {
	boom := errors.New("stream reset")
	src := &chunkSource{rest: []byte("a\npartial"), sizes: []int{4}, err: boom}
	sr := &streamReader{size: 16}
	sr.reset(src)
	if b, err := sr.ReadSlice('\n'); string(b) != "a\n" || err != nil {
		t.Fatalf("first line %q, %v", b, err)
	}
	if b, err := sr.ReadSlice('\n'); string(b) != "partial" || err != boom {
		t.Fatalf("then %q, %v; want the partial line and the stream's error", b, err)
	}
	if b, err := sr.ReadSlice('\n'); len(b) != 0 || err != boom {
		t.Fatalf("after the error %q, %v; want it again", b, err)
	}
}

// TestStreamReaderPeek: what answerAhead sees is what was received behind
// the line just read.
func TestStreamReaderPeek(t *testing.T) {
	src := &chunkSource{rest: []byte("data: a\n\ndata: {\"result\":1}\n\n")}
	sr := &streamReader{size: 64}
	sr.reset(src)
	if _, err := sr.ReadSlice('\n'); err != nil {
		t.Fatal(err)
	}
	if !answerAhead(sr) {
		t.Errorf("answerAhead = false with %q buffered", (*sr.buf)[sr.r:sr.w])
	}
	if b, err := sr.Peek(sr.Buffered() + 1); err != bufio.ErrBufferFull || len(b) != sr.Buffered() {
		t.Errorf("Peek past the buffered bytes = %d bytes, %v", len(b), err)
	}
}

// FuzzStreamReaderSSE: any stream, in any pieces, reads through a
// streamReader into the same events as the reference reading, and the
// reader holds no buffer while it waits for data.
func FuzzStreamReaderSSE(f *testing.F) {
	for _, s := range seedStreams {
		f.Add([]byte(s), uint16(64), []byte{1, 7, 200})
	}
	f.Fuzz(func(t *testing.T, stream []byte, max uint16, pieces []byte) {
		limit := int(max%1024) + 1
		sizes := make([]int, 0, len(pieces))
		for _, p := range pieces {
			sizes = append(sizes, int(p)+1)
		}
		src := &chunkSource{rest: bytes.Clone(stream), sizes: sizes}
		sr := &streamReader{size: 16}
		sr.reset(src)
		src.watch = sr
		checkSSE(t, newSSEReader(sr, limit), stream, limit)
		if src.held != 0 {
			t.Fatalf("held a buffer in %d of %d waits for data", src.held, src.waits)
		}
	})
}

// releaseProbe stands between a streamReader and a real HTTP/2 response
// body: at each wait for data (a read of no bytes) it notes whether the
// reader held a buffer, then lets the server write its next event.
type releaseProbe struct {
	body  io.Reader
	sr    *streamReader
	next  chan<- struct{}
	held  int
	waits int
}

func (p *releaseProbe) Read(b []byte) (int, error) {
	if len(b) == 0 {
		p.waits++
		if p.sr.buf != nil {
			p.held++
		}
		select {
		case p.next <- struct{}{}:
		default: // more waits than events: the handler has enough
		}
	}
	return p.body.Read(b)
}

// TestStreamReaderOverHTTP2: over a real HTTP/2 stream (the standard
// library's client and server, TLS), whose server writes each event only
// when the reader waits for it, every event is read whole and in order,
// and the reader holds no buffer while it waits.
func TestStreamReaderOverHTTP2(t *testing.T) {
	t.Parallel()
	const events = 20
	// A token for each wait of the reader, buffered: a wait that came
	// before the handler was back at its select would otherwise be lost,
	// and the handler would wait for the reader forever (a hang under
	// load).
	next := make(chan struct{}, 2*events)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for i := range events {
			select {
			case <-next:
			case <-r.Context().Done():
				return
			}
			fmt.Fprintf(w, "event: message\ndata: {\"n\":%d,\"pad\":%q}\n\n", i, strings.Repeat("x", i*300))
			w.(http.Flusher).Flush()
		}
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Fatalf("the answer came over %s, want HTTP/2", resp.Proto)
	}
	sr := new(streamReader)
	probe := &releaseProbe{body: resp.Body, sr: sr, next: next}
	sr.reset(probe)
	sse := newSSEReader(sr, 1<<20)
	for i := range events {
		data, err := sse.next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if want := fmt.Sprintf(`{"n":%d,"pad":%q}`, i, strings.Repeat("x", i*300)); string(data) != want {
			t.Fatalf("event %d = %.60q, want %.60q", i, data, want)
		}
	}
	if _, err := sse.next(); err != io.EOF {
		t.Errorf("after the last event: %v, want io.EOF", err)
	}
	if probe.waits < events || probe.held != 0 {
		t.Errorf("held a buffer in %d of %d waits for data (want none of at least %d)", probe.held, probe.waits, events)
	}
}
