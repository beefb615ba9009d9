package client

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// scanner is a small validating JSON reader over one message. It never
// allocates on the paths the receive loop uses: strings and numbers come
// back as sub-slices of the input, and only strings with escapes are
// decoded (rare in practice). It exists because encoding/json allocates for
// every message, and progress notifications are the hot path.
type scanner struct {
	b []byte
	i int
	// badUTF8 records a string that is not valid UTF-8. str reads on past
	// it, so the message's structure (and its id) can still be read;
	// decodeMessage then rejects the message.
	badUTF8 bool
}

// maxDepth bounds nesting so a hostile message cannot exhaust the stack.
const maxDepth = 256

var (
	errSyntax   = errors.New("invalid JSON")
	errTooDeep  = errors.New("JSON nested too deeply")
	errTrailing = errors.New("trailing data after JSON value")
)

func (s *scanner) reset(b []byte) { s.b, s.i, s.badUTF8 = b, 0, false }

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) expect(c byte) error {
	if s.peek() != c {
		return errSyntax
	}
	s.i++
	return nil
}

// end checks that only white space remains.
func (s *scanner) end() error {
	s.ws()
	if s.i != len(s.b) {
		return errTrailing
	}
	return nil
}

// str reads a string and returns its raw bytes between the quotes and
// whether it holds escapes.
func (s *scanner) str() (raw []byte, escaped bool, err error) {
	if s.peek() != '"' {
		return nil, false, errSyntax
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
			if s.i+1 >= len(s.b) {
				return nil, false, errSyntax
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return nil, false, errSyntax
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !isHex(h) {
						return nil, false, errSyntax
					}
				}
				s.i += 6
			default:
				return nil, false, errSyntax
			}
		case c < 0x20:
			return nil, false, errSyntax
		case c < utf8.RuneSelf:
			s.i++
		default:
			r, n := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && n == 1 {
				s.badUTF8 = true
			}
			s.i += n
		}
	}
	return nil, false, errSyntax
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number reads a JSON number and returns its raw bytes.
func (s *scanner) number() ([]byte, error) {
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
		return nil, errSyntax
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return nil, errSyntax
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return nil, errSyntax
		}
	}
	return s.b[start:s.i], nil
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

func (s *scanner) literal(lit string) error {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return errSyntax
	}
	s.i += len(lit)
	return nil
}

// value skips one JSON value and returns its raw bytes.
func (s *scanner) value() ([]byte, error) {
	s.ws()
	start := s.i
	if err := s.skip(0); err != nil {
		return nil, err
	}
	return s.b[start:s.i], nil
}

func (s *scanner) skip(depth int) error {
	if depth > maxDepth {
		return errTooDeep
	}
	switch c := s.peek(); {
	case c == '{':
		return s.object(func([]byte, bool) error { return s.skip(depth + 1) })
	case c == '[':
		return s.array(func() error { return s.skip(depth + 1) })
	case c == '"':
		_, _, err := s.str()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		_, err := s.number()
		return err
	default:
		return errSyntax
	}
}

// object iterates over the members of an object, calling fn with each raw
// key; fn must consume the member's value (with value, skip, str, ...).
func (s *scanner) object(fn func(key []byte, escaped bool) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		key, esc, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := fn(key, esc); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return errSyntax
		}
	}
}

// array iterates over the elements of an array, calling fn once for each;
// fn must consume the element (with value, skip, object, ...).
func (s *scanner) array(fn func() error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for {
		if err := fn(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return errSyntax
		}
	}
}

// keyIs compares a raw object key with a plain ASCII name, resolving
// escapes only when the key has any.
func keyIs(raw []byte, escaped bool, name string) bool {
	if !escaped {
		return string(raw) == name
	}
	return unescape(raw) == name
}

// Unquote returns the text of a raw JSON string body as events carry it
// (Event.Message, Result.Text): escapes decoded, no copy kept of raw.
func Unquote(raw []byte) string {
	for _, c := range raw {
		if c == '\\' {
			return unescape(raw)
		}
	}
	return string(raw)
}

// unescape decodes the escapes of a raw JSON string body. It allocates and is
// used only off the hot path; raw has already been validated by str.
func unescape(raw []byte) string {
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

// parseFloat converts a raw JSON number. Short numbers convert without
// allocating (the string conversion stays on the stack).
func parseFloat(raw []byte) (float64, error) {
	return strconv.ParseFloat(string(raw), 64)
}

// parseInt converts a raw JSON number that must be an integer.
func parseInt(raw []byte) (int64, error) {
	return strconv.ParseInt(string(raw), 10, 64)
}
