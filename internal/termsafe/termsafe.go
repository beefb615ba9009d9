// Package termsafe keeps text that comes from outside mcpchaos — a
// server's name, its tools' names and descriptions, error messages, the
// fields of a results file — from acting on the terminal it is printed
// on: an escape sequence can set the window title, write the clipboard or
// clear the screen, and a carriage return or a line feed can forge a line
// of the report. Escape makes every control character visible as a Go
// escape: the C0 controls (U+0000–U+001F), DEL (U+007F), the C1 controls
// (U+0080–U+009F) and every byte that is not UTF-8 (a terminal that reads
// 8-bit C1 would take 0x9B for CSI), and the line separators and
// bidirectional overrides of Unicode (see reorders). Lines does the same but keeps line
// feeds and tabs, for text whose lines are mcpchaos's own, Writer
// applies Lines to a stream (a command's standard error), and Copy
// escapes every string of a value (a summary about to be printed).
//
// The escapes are for people: a backslash is not doubled, so the result
// is not meant to be unquoted. Text without control characters is
// returned as it is.
//
// The package uses the standard library only.
package termsafe

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escape returns s with every control character and invalid byte made
// visible: "\n", "\r", "\t", "\a", "\x1b", "\x7f", "\u009b", "\xff".
func Escape(s string) string { return escape(s, false) }

// Lines is Escape but keeps line feeds and tabs.
func Lines(s string) string { return escape(s, true) }

// escape is Escape, or Lines when keepLines.
func escape(s string, keepLines bool) string {
	clean := 0
	for clean < len(s) {
		r, size := utf8.DecodeRuneInString(s[clean:])
		if unsafe(r, size, keepLines) {
			break
		}
		clean += size
	}
	if clean == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:clean])
	for i := clean; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafe(r, size, keepLines) {
			b.WriteString(visible(r, s[i]))
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafe reports whether the rune r (size bytes; RuneError of size 1 for
// an invalid byte) must be escaped.
func unsafe(r rune, size int, keepLines bool) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case keepLines && (r == '\n' || r == '\t'):
		return false
	}
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) || reorders(r)
}

// reorders reports whether r moves text on the screen without being a
// control character: the line and paragraph separators (U+2028, U+2029),
// which some terminals and viewers break lines at, and the bidirectional
// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069),
// which make a line read otherwise than it is written.
func reorders(r rune) bool {
	return (r >= 0x2028 && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// visible is the escape of r, or of the invalid byte b: Go's, as
// strconv.Quote writes it (so a secret is redacted in it as in its
// quoted form).
func visible(r rune, b byte) string {
	if r == utf8.RuneError {
		return fmt.Sprintf(`\x%02x`, b)
	}
	q := strconv.QuoteRune(r)
	return q[1 : len(q)-1]
}
