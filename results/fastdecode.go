package results

import (
	"bytes"
	"math"
	"strconv"

	"github.com/mcpchaos/mcpchaos/internal/jsonscan"
)

// A fast decoder for call lines. encoding/json spends about 6 µs of CPU on
// a typical record (it scans every line twice and walks it by
// reflection), which alone would put a million-call report over its
// budget. fastRecord decodes the lines our own writer produces in one pass
// and gives up (ok false) on anything it does not handle exactly as
// encoding/json would: a string with an escape or a control character, a
// null, a member it does not know (encoding/json also matches keys without
// regard to case) or one given twice, a number that does not fit its
// field. The caller then decodes the line with encoding/json, so the result
// is always what encoding/json gives; FuzzFastRecord holds the two to that.

// lexer walks one JSON line with the lexer the client's receive loop uses
// (internal/jsonscan); ok turns false at the first thing it does not
// handle, and every method is a no-op after that.
type lexer struct {
	s  jsonscan.Scanner
	ok bool
	// names, if set, interns the strings that repeat from line to line
	// (intern.go); sp, if set, lends the containers of the record
	// being decoded (reuse.go). Both nil: every string and container is new.
	names *interner
	sp    *spare
}

// raw returns a string's bytes (without quotes) when it has no escape,
// no control character and valid UTF-8.
func (l *lexer) raw() []byte {
	if !l.ok {
		return nil
	}
	v, esc, err := l.s.Str()
	if err != nil || esc || l.s.BadUTF8 {
		l.ok = false
		return nil
	}
	return v
}

// quoted returns a string with its quotes (for an UnmarshalJSON method),
// under the conditions of raw.
func (l *lexer) quoted() []byte {
	if !l.ok || l.s.Peek() != '"' {
		l.ok = false
		return nil
	}
	v, err := l.s.Value()
	if err != nil || l.s.BadUTF8 {
		l.ok = false
		return nil
	}
	for _, c := range v {
		if c == '\\' {
			l.ok = false
			return nil
		}
	}
	return v
}

func (l *lexer) str() string {
	s := l.raw()
	if !l.ok || len(s) == 0 {
		return ""
	}
	return string(s)
}

// name is str for a string that repeats from line to line (a tool, an
// outcome, a policy, a fault kind): interned when the lexer has names.
func (l *lexer) name() string {
	s := l.raw()
	if !l.ok || len(s) == 0 {
		return ""
	}
	return l.names.get(s)
}

// cached decodes the next value with decode (on a lexer of its own, whose
// containers are the spare's), or, when the value's bytes are those decode
// last read into the spare (*last), leaves the spare's containers as they
// are and returns true. For a lexer with a spare only.
func (l *lexer) cached(last *[]byte, decode func(sub *lexer)) bool {
	if !l.ok {
		return false
	}
	raw, err := l.s.Value()
	if err != nil || l.s.BadUTF8 {
		l.ok = false
		return false
	}
	if *last != nil && bytes.Equal(raw, *last) {
		return true
	}
	sub := &lexer{ok: true, names: l.names, sp: l.sp}
	sub.s.Reset(raw)
	decode(sub)
	sub.end()
	if !sub.ok {
		l.ok, *last = false, nil
		return false
	}
	*last = append((*last)[:0], raw...)
	return false
}

// number returns a JSON number's literal.
func (l *lexer) number() []byte {
	if !l.ok {
		return nil
	}
	v, err := l.s.Number()
	if err != nil {
		l.ok = false
	}
	return v
}

// int64 reads an integer: a fraction or an exponent gives up, as
// encoding/json refuses them for an integer field.
func (l *lexer) int64() int64 {
	lit := l.number()
	if !l.ok {
		return 0
	}
	v, err := strconv.ParseInt(string(lit), 10, 64)
	if err != nil {
		l.ok = false
	}
	return v
}

func (l *lexer) int() int {
	v := l.int64()
	if v > math.MaxInt || v < math.MinInt {
		l.ok = false
	}
	return int(v)
}

func (l *lexer) uint64() uint64 {
	lit := l.number()
	if !l.ok {
		return 0
	}
	v, err := strconv.ParseUint(string(lit), 10, 64)
	if err != nil {
		l.ok = false
	}
	return v
}

func (l *lexer) float() float64 {
	lit := l.number()
	if !l.ok {
		return 0
	}
	v, err := jsonscan.ParseFloat(lit)
	if err != nil {
		l.ok = false
	}
	return v
}

func (l *lexer) bool() bool {
	if !l.ok {
		return false
	}
	switch l.s.Peek() {
	case 't':
		l.ok = l.s.Literal("true") == nil
		return l.ok
	case 'f':
		l.ok = l.s.Literal("false") == nil
		return false
	}
	l.ok = false
	return false
}

// anyKey is the bit of a member of a map: its keys may repeat (the last
// wins, as in encoding/json).
const anyKey = 1 << 63

// members calls member for each key of an object; member decodes the value
// and returns the key's bit: 0 for an unknown key, anyKey for a map's key,
// else a bit that may occur once. A key with an escape gives up. (It
// walks the object with the scanner's steps rather than its Object
// method: one callback less per member on the report's hot loop.)
func (l *lexer) members(member func(key []byte) uint64) {
	l.expect('{')
	if l.ok && l.s.Peek() == '}' {
		l.expect('}')
		return
	}
	var seen uint64
	for l.ok {
		key := l.raw()
		l.expect(':')
		if !l.ok {
			return
		}
		bit := member(key)
		if bit == 0 || (bit != anyKey && seen&bit != 0) {
			l.ok = false
			return
		}
		seen |= bit
		if !l.more('}') {
			return
		}
	}
}

// elements calls elem for each element of an array.
func (l *lexer) elements(elem func()) {
	l.expect('[')
	if l.ok && l.s.Peek() == ']' {
		l.expect(']')
		return
	}
	for l.ok {
		elem()
		if !l.more(']') {
			return
		}
	}
}

// expect consumes c or gives up.
func (l *lexer) expect(c byte) {
	if l.ok && l.s.Expect(c) != nil {
		l.ok = false
	}
}

// more consumes the comma before another member or element (true) or the
// closing byte (false); anything else gives up.
func (l *lexer) more(closing byte) bool {
	if !l.ok {
		return false
	}
	switch l.s.Peek() {
	case ',':
		l.expect(',')
		return true
	case closing:
		l.expect(closing)
		return false
	}
	l.ok = false
	return false
}

// end checks that nothing but white space follows.
func (l *lexer) end() {
	if l.ok && l.s.End() != nil {
		l.ok = false
	}
}
