// Package jsonscan is the one JSON lexer of mcpchaos's hot paths: the
// client's receive loop (every JSON-RPC message, progress notifications
// above all) and the results file's fast decoder (every call line of a
// report). It validates as it reads and never allocates: strings and
// numbers come back as sub-slices of the input, and only a string with
// escapes is ever decoded (Unquote). Standard library only, so that both
// base packages share it.
package jsonscan

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// Scanner is a small validating JSON reader over one value. Its zero value
// is ready after Reset.
type Scanner struct {
	b []byte
	i int
	// BadUTF8 records a string that is not valid UTF-8. Str reads on past
	// it, so the rest of the structure (a message's id) can still be read;
	// the caller decides whether that rejects the value.
	BadUTF8 bool
}

// MaxDepth bounds nesting so a hostile value cannot exhaust the stack.
const MaxDepth = 256

// The errors a Scanner returns.
var (
	ErrSyntax   = errors.New("invalid JSON")
	ErrTooDeep  = errors.New("JSON nested too deeply")
	ErrTrailing = errors.New("trailing data after JSON value")
)

// Reset starts reading b from its beginning.
func (s *Scanner) Reset(b []byte) { s.b, s.i, s.BadUTF8 = b, 0, false }

func (s *Scanner) ws() {
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return // the common case: no white space (compact JSON)
	}
	s.spaces()
}

// spaces steps over white space.
func (s *Scanner) spaces() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// Peek returns the next non-space byte, or 0 at the end.
func (s *Scanner) Peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// Expect consumes the byte c (after white space) or fails.
func (s *Scanner) Expect(c byte) error {
	if s.Peek() != c {
		return ErrSyntax
	}
	s.i++
	return nil
}

// End checks that only white space remains.
func (s *Scanner) End() error {
	s.ws()
	if s.i != len(s.b) {
		return ErrTrailing
	}
	return nil
}

// Str reads a string and returns its raw bytes between the quotes and
// whether it holds escapes. A control character is a syntax error; bytes
// that are not valid UTF-8 set BadUTF8.
func (s *Scanner) Str() (raw []byte, escaped bool, err error) {
	if s.Peek() != '"' {
		return nil, false, ErrSyntax
	}
	s.i++
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw = s.b[start:s.i]
			s.i++
			return raw, escaped, nil
		case c == '\\':
			escaped = true
			if !s.escape() {
				return nil, false, ErrSyntax
			}
		case c < 0x20:
			return nil, false, ErrSyntax
		case c < utf8.RuneSelf:
			s.i++
		default:
			r, n := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && n == 1 {
				s.BadUTF8 = true
			}
			s.i += n
		}
	}
	return nil, false, ErrSyntax
}

// escape steps over the escape sequence at s.i, reporting whether it is
// one JSON allows.
func (s *Scanner) escape() bool {
	if s.i+1 >= len(s.b) {
		return false
	}
	switch s.b[s.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i += 2
		return true
	case 'u':
		if s.i+6 > len(s.b) {
			return false
		}
		for _, h := range s.b[s.i+2 : s.i+6] {
			if !isHex(h) {
				return false
			}
		}
		s.i += 6
		return true
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Number reads a JSON number and returns its raw bytes.
func (s *Scanner) Number() ([]byte, error) {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		return nil, ErrSyntax
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return nil, ErrSyntax
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return nil, ErrSyntax
		}
	}
	return s.b[start:s.i], nil
}

func (s *Scanner) digits() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// Literal consumes lit (true, false or null) after white space.
func (s *Scanner) Literal(lit string) error {
	s.ws()
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return ErrSyntax
	}
	s.i += len(lit)
	return nil
}

// Value skips one JSON value and returns its raw bytes.
func (s *Scanner) Value() ([]byte, error) {
	s.ws()
	start := s.i
	if err := s.skip(0); err != nil {
		return nil, err
	}
	return s.b[start:s.i], nil
}

func (s *Scanner) skip(depth int) error {
	if depth > MaxDepth {
		return ErrTooDeep
	}
	switch c := s.Peek(); {
	case c == '{':
		return s.Object(func([]byte, bool) error { return s.skip(depth + 1) })
	case c == '[':
		return s.Array(func() error { return s.skip(depth + 1) })
	case c == '"':
		_, _, err := s.Str()
		return err
	case c == 't':
		return s.Literal("true")
	case c == 'f':
		return s.Literal("false")
	case c == 'n':
		return s.Literal("null")
	case c == '-' || c >= '0' && c <= '9':
		_, err := s.Number()
		return err
	default:
		return ErrSyntax
	}
}

// Object iterates over the members of an object, calling fn with each raw
// key; fn must consume the member's value (with Value, Str, Number, ...).
func (s *Scanner) Object(fn func(key []byte, escaped bool) error) error {
	if err := s.Expect('{'); err != nil {
		return err
	}
	if s.Peek() == '}' {
		s.i++
		return nil
	}
	for {
		key, esc, err := s.Str()
		if err != nil {
			return err
		}
		if err := s.Expect(':'); err != nil {
			return err
		}
		if err := fn(key, esc); err != nil {
			return err
		}
		switch s.Peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return ErrSyntax
		}
	}
}

// Array iterates over the elements of an array, calling fn once for each;
// fn must consume the element.
func (s *Scanner) Array(fn func() error) error {
	if err := s.Expect('['); err != nil {
		return err
	}
	if s.Peek() == ']' {
		s.i++
		return nil
	}
	for {
		if err := fn(); err != nil {
			return err
		}
		switch s.Peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return ErrSyntax
		}
	}
}

// KeyIs compares a raw object key with a plain ASCII name, resolving
// escapes only when the key has any.
func KeyIs(raw []byte, escaped bool, name string) bool {
	if !escaped {
		return string(raw) == name
	}
	return Unescape(raw) == name
}

// Unescape decodes the escapes of a raw JSON string body that Str has
// validated. It allocates: callers keep it off their hot path.
func Unescape(raw []byte) string {
	q := make([]byte, 0, len(raw)+2)
	q = append(q, '"')
	q = append(q, raw...)
	q = append(q, '"')
	var out string
	if err := json.Unmarshal(q, &out); err != nil {
		return string(raw)
	}
	return out
}

// ParseFloat converts a raw JSON number. Short numbers convert without
// allocating (the string conversion stays on the stack).
func ParseFloat(raw []byte) (float64, error) {
	return strconv.ParseFloat(string(raw), 64)
}

// ParseInt converts a raw JSON number that must be an integer.
func ParseInt(raw []byte) (int64, error) {
	return strconv.ParseInt(string(raw), 10, 64)
}
