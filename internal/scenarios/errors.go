package scenarios

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a position in a scenario file: 1-based line and column. The zero
// Pos means "unknown" (a value set by a flag or built in Go code).
type Pos struct{ Line, Column int }

// IsValid reports whether p names a real position.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String returns "line:column".
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Column) }

// Error is one problem in a scenario file. Its text is
// "FILE:LINE:COLUMN: message", or "FILE: message" without a position.
type Error struct {
	File string
	Pos  Pos
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(":")
	}
	if e.Pos.IsValid() {
		b.WriteString(e.Pos.String())
		b.WriteString(":")
	}
	if b.Len() > 0 {
		b.WriteString(" ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one scenario file, in file order. Parse
// and Load return it as their error; use errors.As to get the list, or print
// it as is (one error per line).
type Errors []*Error

func (l Errors) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the individual errors, for errors.Is and errors.As.
func (l Errors) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// maxErrors bounds how many errors one file reports; a garbage file would
// otherwise produce one per line.
const maxErrors = 50

// sorted returns the list ordered by position, without exact duplicates (an
// aliased node that is decoded twice reports its problems once), and cut
// to maxErrors.
func (l Errors) sorted() Errors {
	out := make(Errors, 0, len(l))
	seen := make(map[Error]bool, len(l))
	for _, e := range l {
		if seen[*e] {
			continue
		}
		seen[*e] = true
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	if len(out) > maxErrors {
		rest := len(out) - maxErrors
		out = append(out[:maxErrors:maxErrors], &Error{File: out[0].File, Msg: fmt.Sprintf("too many errors (%d more not shown)", rest)})
	}
	return out
}
