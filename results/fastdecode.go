package results

import (
	"math"
	"strconv"
	"unicode/utf8"
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

// lexer walks one JSON line; ok turns false at the first thing it does
// not handle, and every method is a no-op after that.
type lexer struct {
	b  []byte
	i  int
	ok bool
}

func (l *lexer) ws() {
	for l.i < len(l.b) {
		switch l.b[l.i] {
		case ' ', '\t', '\n', '\r':
			l.i++
		default:
			return
		}
	}
}

// next skips white space and returns the next byte (0 at the end).
func (l *lexer) next() byte {
	l.ws()
	if !l.ok || l.i >= len(l.b) {
		return 0
	}
	return l.b[l.i]
}

// expect consumes c or fails.
func (l *lexer) expect(c byte) {
	if l.next() != c {
		l.ok = false
		return
	}
	l.i++
}

// raw returns a string's bytes (without quotes) when it has no escape,
// no control character and valid UTF-8.
func (l *lexer) raw() []byte {
	l.expect('"')
	if !l.ok {
		return nil
	}
	start, ascii := l.i, true
	for l.i < len(l.b) {
		c := l.b[l.i]
		switch {
		case c == '"':
			s := l.b[start:l.i]
			l.i++
			if !ascii && !utf8.Valid(s) {
				l.ok = false
			}
			return s
		case c == '\\' || c < 0x20:
			l.ok = false
			return nil
		case c >= utf8.RuneSelf:
			ascii = false
		}
		l.i++
	}
	l.ok = false
	return nil
}

func (l *lexer) str() string {
	s := l.raw()
	if !l.ok || len(s) == 0 {
		return ""
	}
	return string(s)
}

// number returns a JSON number's literal; integer asks for no fraction
// and no exponent.
func (l *lexer) number(integer bool) []byte {
	l.ws()
	start := l.i
	if l.i < len(l.b) && l.b[l.i] == '-' {
		l.i++
	}
	digits := func() int {
		n := 0
		for l.i < len(l.b) && l.b[l.i] >= '0' && l.b[l.i] <= '9' {
			l.i++
			n++
		}
		return n
	}
	first := l.i
	n := digits()
	if n == 0 || (n > 1 && l.b[first] == '0') {
		l.ok = false
		return nil
	}
	if l.i < len(l.b) && l.b[l.i] == '.' {
		l.i++
		if integer || digits() == 0 {
			l.ok = false
			return nil
		}
	}
	if l.i < len(l.b) && (l.b[l.i] == 'e' || l.b[l.i] == 'E') {
		l.i++
		if l.i < len(l.b) && (l.b[l.i] == '+' || l.b[l.i] == '-') {
			l.i++
		}
		if integer || digits() == 0 {
			l.ok = false
			return nil
		}
	}
	return l.b[start:l.i]
}

func (l *lexer) int64() int64 {
	lit := l.number(true)
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
	lit := l.number(true)
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
	lit := l.number(false)
	if !l.ok {
		return 0
	}
	v, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		l.ok = false
	}
	return v
}

func (l *lexer) bool() bool {
	l.ws()
	switch {
	case l.hasPrefix("true"):
		l.i += 4
		return true
	case l.hasPrefix("false"):
		l.i += 5
		return false
	}
	l.ok = false
	return false
}

func (l *lexer) hasPrefix(s string) bool {
	return len(l.b)-l.i >= len(s) && string(l.b[l.i:l.i+len(s)]) == s
}

// anyKey is the bit of a member of a map: its keys may repeat (the last
// wins, as in encoding/json).
const anyKey = 1 << 63

// members calls member for each key of an object; member decodes the value
// and returns the key's bit: 0 for an unknown key, anyKey for a map's key,
// else a bit that may occur once.
func (l *lexer) members(member func(key []byte) uint64) {
	l.expect('{')
	if l.next() == '}' {
		l.i++
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
		switch l.next() {
		case ',':
			l.i++
		case '}':
			l.i++
			return
		default:
			l.ok = false
		}
	}
}

// elements calls elem for each element of an array.
func (l *lexer) elements(elem func()) {
	l.expect('[')
	if l.next() == ']' {
		l.i++
		return
	}
	for l.ok {
		elem()
		switch l.next() {
		case ',':
			l.i++
		case ']':
			l.i++
			return
		default:
			l.ok = false
		}
	}
}

// end checks that nothing but white space follows.
func (l *lexer) end() {
	l.ws()
	if l.i != len(l.b) {
		l.ok = false
	}
}
