package results

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Writer appends lines to a results file. It is meant for one goroutine;
// a mutex only guards against the periodic flush.
type Writer struct {
	mu    sync.Mutex
	f     io.WriteCloser
	gz    *gzip.Writer
	bw    *bufio.Writer
	enc   *json.Encoder
	stop  chan struct{}
	done  chan struct{}
	err   error
	lines int
	// redact, when set, filters every line before it is written.
	redact func(line []byte) []byte
	line   bytes.Buffer
}

// Create opens path for writing (".gz" compresses) and flushes what was
// written at least every flushEvery, so a crash loses little.
func Create(path string, flushEvery time.Duration) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create results file: %w", err)
	}
	return NewWriter(f, strings.HasSuffix(path, ".gz"), flushEvery), nil
}

// NewWriter writes a results file to f (compressed with gzip when
// compress), flushing at least every flushEvery; Close closes f.
func NewWriter(f io.WriteCloser, compress bool, flushEvery time.Duration) *Writer {
	w := &Writer{f: f, stop: make(chan struct{}), done: make(chan struct{})}
	var out io.Writer = f
	if compress {
		w.gz = gzip.NewWriter(f)
		out = w.gz
	}
	w.bw = bufio.NewWriterSize(out, 64<<10)
	w.enc = json.NewEncoder(w.bw)
	if flushEvery <= 0 {
		flushEvery = 200 * time.Millisecond
	}
	go w.flusher(flushEvery)
	return w
}

func (w *Writer) flusher(every time.Duration) {
	defer close(w.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.mu.Lock()
			_ = w.flushLocked()
			w.mu.Unlock()
		}
	}
}

func (w *Writer) flushLocked() error {
	if err := w.bw.Flush(); err != nil {
		return err
	}
	if w.gz != nil {
		return w.gz.Flush()
	}
	return nil
}

// Redact makes every line pass through f (one encoded JSON line, with its
// newline) before it is written: mcpchaos run gives its secrets'
// redact.Set.JSON, so no secret reaches the file. Call it before the first
// Write.
func (w *Writer) Redact(f func(line []byte) []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.redact = f
	w.enc = json.NewEncoder(&w.line)
}

// Write appends one line (a Header, Record, Sample or Trailer).
func (w *Writer) Write(v any) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	err := w.enc.Encode(v)
	if w.redact != nil {
		if err == nil {
			_, err = w.bw.Write(w.redact(w.line.Bytes()))
		}
		w.line.Reset()
	}
	if err != nil {
		w.err = fmt.Errorf("write results line %d: %w", w.lines+1, err)
		return w.err
	}
	w.lines++
	return nil
}

// Close flushes and closes the file.
func (w *Writer) Close() error {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.flushLocked()
	if w.gz != nil {
		if cerr := w.gz.Close(); err == nil {
			err = cerr
		}
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = w.err
	}
	return err
}
