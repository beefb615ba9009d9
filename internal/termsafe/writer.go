package termsafe

import (
	"io"
	"sync"
	"unicode/utf8"
)

// Writer applies Lines to everything written to it and passes the result
// on: line feeds and tabs go through, every other control character and
// invalid byte is escaped. A character split across two writes is held
// until its end arrives (Flush writes what is held). It is safe for
// concurrent use.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	held []byte // the start of a character whose end has not come yet
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Unwrap returns the writer w writes to: a status line writes its own
// control sequences there, and isTerminal looks through it.
func (w *Writer) Unwrap() io.Writer { return w.w }

// Write escapes p and writes it on; it reports len(p) written unless the
// underlying writer failed.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := append(w.held, p...)
	w.held = nil
	// Hold a character that is cut at the end: its first bytes are a valid
	// start that is not yet a full rune.
	start := len(buf)
	for k := 1; k <= utf8.UTFMax && start > 0; k++ {
		start--
		if utf8.RuneStart(buf[start]) {
			break
		}
	}
	if start < len(buf) && utf8.RuneStart(buf[start]) && !utf8.FullRune(buf[start:]) && buf[start] >= 0xc0 {
		w.held = append([]byte(nil), buf[start:]...)
		buf = buf[:start]
	}
	if _, err := io.WriteString(w.w, Lines(string(buf))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held (an unfinished character, escaped).
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.held) == 0 {
		return nil
	}
	held := w.held
	w.held = nil
	_, err := io.WriteString(w.w, Lines(string(held)))
	return err
}
