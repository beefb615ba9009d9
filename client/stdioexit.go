package client

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// How a stdio server's end is told: its exit status, and the last lines
// it wrote to stderr (kept in the stderr ring), so that a server that
// prints "FATAL: config file missing" and exits 1 is not reported as a
// closed pipe.

// serverGoneError is the end of a stdio server's stdout.
type serverGoneError struct {
	exited      bool
	exitErr     error // from Wait: "exit status 1", "signal: killed"; nil for 0
	readErr     error // what reading stdout returned, if known
	stdinClosed bool  // we had closed its stdin
}

func (e *serverGoneError) Error() string {
	var s string
	switch {
	case e.exited && e.exitErr != nil:
		s = "server exited: " + e.exitErr.Error()
	case e.exited:
		s = "server exited: exit status 0"
	case e.readErr != nil:
		s = "server closed stdout: " + e.readErr.Error()
	default:
		s = "server closed stdout"
	}
	if e.stdinClosed {
		s += " (after its stdin was closed)"
	}
	return s
}

func (e *serverGoneError) Unwrap() error { return e.exitErr }

// gone describes the server after its stdout closed, waiting up to wait
// for its exit status.
func (t *stdioTransport) gone(wait time.Duration, readErr error) error {
	select {
	case <-t.exited:
	default:
		if wait > 0 {
			timer := time.NewTimer(wait)
			select {
			case <-t.exited:
			case <-timer.C:
			}
			timer.Stop()
		}
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	return &serverGoneError{exited: !t.exitAt.IsZero(), exitErr: t.exitErr, readErr: readErr, stdinClosed: !t.eofAt.IsZero()}
}

// readEnded reports whether the reader stops within wait.
func (t *stdioTransport) readEnded(wait time.Duration) bool {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-t.readEnd:
		return true
	case <-timer.C:
		return false
	}
}

// exitedAlone reports whether the server has exited by itself: at once,
// or within a second when its stdout has already closed (the exit follows).
func (t *stdioTransport) exitedAlone() bool {
	select {
	case <-t.exited:
		return true
	case <-t.readEnd:
		timer := time.NewTimer(time.Second)
		defer timer.Stop()
		select {
		case <-t.exited:
			return true
		case <-timer.C:
		}
	default:
	}
	return false
}

// explain adds to a failed Dial what the server showed: its exit status
// when it exited by itself (and err does not say so already), and the
// last lines of its stderr. Call it after the process has ended, so its
// stderr is complete.
func (t *stdioTransport) explain(err error, exitedAlone bool) error {
	var b strings.Builder
	var gone *serverGoneError
	if exitedAlone && !(errors.As(err, &gone) && gone.exited) {
		t.wmu.Lock()
		g := serverGoneError{exited: true, exitErr: t.exitErr}
		t.wmu.Unlock()
		b.WriteString("; " + g.Error())
	}
	if tail := lastLines(t.stderr.bytes(), stderrTailLines, stderrTailWidth); tail != "" {
		b.WriteString("; the last lines of its stderr:\n" + tail)
	} else {
		b.WriteString("; it wrote nothing on stderr")
	}
	return fmt.Errorf("%w%s", err, b.String())
}

const (
	stderrTailLines = 5
	stderrTailWidth = 200
)

// lastLines returns the last n non-blank lines of b, each indented and cut
// to width runes, control characters replaced, as a block of text.
func lastLines(b []byte, n, width int) string {
	lines := bytes.Split(bytes.TrimRight(b, "\r\n\t "), []byte("\n"))
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		line := strings.TrimRight(strings.ToValidUTF8(string(lines[i]), "\uFFFD"), "\r\t ")
		if strings.TrimSpace(line) == "" {
			continue
		}
		line = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) && r != '\t' {
				return '\uFFFD'
			}
			return r
		}, line)
		if r := []rune(line); len(r) > width {
			line = string(r[:width]) + "…"
		}
		keep = append(keep, "    "+line)
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	return strings.Join(keep, "\n")
}
