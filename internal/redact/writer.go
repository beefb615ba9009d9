package redact

import (
	"bytes"
	"io"
	"sync"
)

// maxPending bounds what a text Writer holds back waiting for the end of a
// line: a longer line is cut where no secret spans the cut.
const maxPending = 64 << 10

// Writer redacts a stream one line at a time: it holds what it is given
// until a line ends ("\n", or "\r" for text: a status line redraws with
// it), then writes the line redacted. A secret split across Write calls is
// therefore still found, as long as it is not split across lines (a
// value with a line break is matched in its escaped forms). Flush writes
// what is held. It is safe for concurrent use; the set may grow while it
// is in use (later lines see the new values).
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	set  *Set
	json bool
	buf  []byte
	err  error
}

// Writer returns a Writer that redacts text written to w (String).
func (s *Set) Writer(w io.Writer) *Writer { return &Writer{w: w, set: s} }

// JSONWriter returns a Writer for JSON text (one document, or JSON lines)
// that redacts only inside string literals (see JSON). It holds a line
// until it ends, however long: JSON outputs are mcpchaos's own.
func (s *Set) JSONWriter(w io.Writer) *Writer { return &Writer{w: w, set: s, json: true} }

// Unwrap returns the writer w writes to (to see whether it is a terminal).
func (w *Writer) Unwrap() io.Writer { return w.w }

// Write buffers p and writes every complete line, redacted. It reports
// len(p) written unless the underlying writer failed.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	w.buf = append(w.buf, p...)
	end := bytes.LastIndexByte(w.buf, '\n')
	if !w.json {
		end = max(end, bytes.LastIndexByte(w.buf, '\r'))
	}
	if end >= 0 {
		w.emit(end + 1)
	}
	if !w.json && len(w.buf) > maxPending {
		_, forms := w.set.snapshot()
		w.emit(safeCut(w.buf, forms))
	}
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

// Flush writes what is held, redacted.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil && len(w.buf) > 0 {
		w.emit(len(w.buf))
	}
	return w.err
}

// emit writes buf[:n] redacted and keeps the rest.
func (w *Writer) emit(n int) {
	chunk := w.buf[:n]
	var out []byte
	if w.json {
		out = w.set.JSON(chunk)
	} else {
		out = w.set.Bytes(chunk)
	}
	if _, err := w.w.Write(out); err != nil {
		w.err = err
	}
	w.buf = append(w.buf[:0], w.buf[n:]...)
}

// safeCut returns where to cut b so that no occurrence of a form spans the
// cut: it starts maxLen-1 bytes before the end and moves past any
// occurrence that crosses it.
func safeCut(b []byte, forms []string) int {
	longest := 0
	for _, f := range forms {
		longest = max(longest, len(f))
	}
	cut := max(len(b)-max(longest-1, 0), 0)
	for moved := true; moved; {
		moved = false
		for _, f := range forms {
			lo, hi := max(cut-len(f)+1, 0), min(cut+len(f)-1, len(b))
			if lo >= hi {
				continue
			}
			// An occurrence inside [lo, hi) starts before the cut and
			// ends after it.
			if k := bytes.Index(b[lo:hi], []byte(f)); k >= 0 {
				cut = lo + k + len(f)
				moved = true
			}
		}
	}
	return cut
}
