package testutil

import (
	"fmt"
	"io"
	"sync"
)

// LockedWriter serialises writes to W, so that several goroutines (a
// server and a filter sharing stdout) or a process and a test reading its
// output can share one stream without a race. With a *bytes.Buffer for W,
// String reads what was written under the same lock.
type LockedWriter struct {
	mu sync.Mutex
	W  io.Writer
}

func (l *LockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.W.Write(p)
}

// String returns W's text when W has one (a *bytes.Buffer), else "".
func (l *LockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.W.(fmt.Stringer); ok {
		return s.String()
	}
	return ""
}

// Close does nothing and leaves W open, so that a LockedWriter can stand
// where an io.WriteCloser is wanted (an SDK transport over stdout).
func (l *LockedWriter) Close() error { return nil }
