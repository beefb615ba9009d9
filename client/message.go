package client

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// msgKind is what an incoming JSON-RPC message is.
type msgKind uint8

const (
	kindInvalid      msgKind = iota
	kindResult               // a response with result
	kindError                // a response with error
	kindNotification         // method, no id
	kindRequest              // method and id: a server-initiated request
)

// inMsg is one decoded incoming message. Byte slices point into the buffer
// the message was decoded from and are valid only until that buffer is
// reused.
type inMsg struct {
	kind       msgKind
	versionOK  bool // "jsonrpc": "2.0" present
	hasID      bool
	idNum      int64 // valid when idIsNum
	idIsNum    bool
	idRaw      []byte // the id as it appeared (for answering server requests)
	idIsStr    bool   // idRaw is a string's body, not a number
	idNull     bool   // "id": null (only meaningful on an error)
	method     []byte
	methodEsc  bool
	params     []byte
	result     []byte
	errCode    int64
	errMessage []byte // raw string body
	errData    []byte // raw value, nil if absent
}

func (m *inMsg) methodIs(name string) bool { return keyIs(m.method, m.methodEsc, name) }

var errNotObject = errors.New("message is not a JSON object")

// decodeMessage decodes one JSON-RPC message from b into m without
// allocating. It validates the whole message. A message whose only fault
// is text that is not valid UTF-8 is errInvalidUTF8, with m complete.
func decodeMessage(s *scanner, b []byte, m *inMsg) error {
	*m = inMsg{}
	s.Reset(b)
	if s.Peek() != '{' {
		if s.Peek() == '[' {
			return errors.New("batch messages are not allowed")
		}
		return errNotObject
	}
	var hasResult, hasError bool
	err := s.Object(func(key []byte, esc bool) error {
		switch {
		case keyIs(key, esc, "jsonrpc"):
			if s.Peek() != '"' {
				_, err := s.Value()
				return err
			}
			v, _, err := s.Str()
			m.versionOK = err == nil && string(v) == "2.0"
			return err
		case keyIs(key, esc, "id"):
			return m.decodeID(s)
		case keyIs(key, esc, "method"):
			v, e, err := s.Str()
			m.method, m.methodEsc = v, e
			return err
		case keyIs(key, esc, "params"):
			v, err := s.Value()
			m.params = v
			return err
		case keyIs(key, esc, "result"):
			v, err := s.Value()
			m.result, hasResult = v, true
			return err
		case keyIs(key, esc, "error"):
			hasError = true
			return m.decodeError(s)
		default:
			_, err := s.Value()
			return err
		}
	})
	if err != nil {
		return err
	}
	if err := s.End(); err != nil {
		return err
	}
	switch {
	case m.method != nil && m.hasID:
		m.kind = kindRequest
	case m.method != nil:
		m.kind = kindNotification
	case hasResult && hasError:
		return errors.New("response has both result and error")
	case hasResult && m.hasID:
		m.kind = kindResult
	case hasError && (m.hasID || m.idNull):
		// An error with a null id answers a request whose id could not be
		// read (a parse error).
		m.kind = kindError
	case hasResult || hasError:
		return errors.New("response without id")
	default:
		return errors.New("message has neither method nor result nor error")
	}
	if s.BadUTF8 {
		return errInvalidUTF8 // m is complete: its id says whose answer it was
	}
	return nil
}

func (m *inMsg) decodeID(s *scanner) error {
	// A repeated "id" replaces the earlier one (as encoding/json would).
	m.hasID, m.idRaw, m.idNum, m.idIsNum, m.idIsStr, m.idNull = false, nil, 0, false, false, false
	switch c := s.Peek(); {
	case c == 'n':
		_, err := s.Value() // null id: present but unusable, except on an error
		m.idNull = err == nil
		return err
	case c == '"':
		v, _, err := s.Str()
		m.hasID, m.idRaw, m.idIsStr = true, v, true
		return err
	default:
		v, err := s.Number()
		if err != nil {
			return err
		}
		m.hasID, m.idRaw = true, v
		if n, err := parseInt(v); err == nil {
			m.idNum, m.idIsNum = n, true
		}
		return nil
	}
}

func (m *inMsg) decodeError(s *scanner) error {
	if s.Peek() != '{' {
		return errors.New("error member is not an object")
	}
	var hasCode bool
	err := s.Object(func(key []byte, esc bool) error {
		switch {
		case keyIs(key, esc, "code"):
			v, err := s.Number()
			if err != nil {
				return errors.New("error code is not a number")
			}
			n, err := parseInt(v)
			if err != nil {
				return fmt.Errorf("error code %s is not an integer", v)
			}
			m.errCode, hasCode = n, true
			return nil
		case keyIs(key, esc, "message"):
			if s.Peek() != '"' {
				_, err := s.Value()
				return err
			}
			v, _, err := s.Str()
			m.errMessage = v
			return err
		case keyIs(key, esc, "data"):
			v, err := s.Value()
			m.errData = v
			return err
		default:
			_, err := s.Value()
			return err
		}
	})
	if err == nil && !hasCode {
		return errors.New("error object has no code")
	}
	return err
}

// progressMsg is the params of a notifications/progress.
type progressMsg struct {
	token      []byte // string body or number text
	tokenIsStr bool
	progress   float64
	total      float64
	hasTotal   bool
	message    []byte
}

func decodeProgress(s *scanner, params []byte, p *progressMsg) error {
	*p = progressMsg{}
	if params == nil {
		return errors.New("progress notification without params")
	}
	s.Reset(params)
	var hasProgress bool
	err := s.Object(func(key []byte, esc bool) error {
		switch {
		case keyIs(key, esc, "progressToken"):
			if s.Peek() == '"' {
				v, _, err := s.Str()
				p.token, p.tokenIsStr = v, true
				return err
			}
			v, err := s.Number()
			p.token = v
			return err
		case keyIs(key, esc, "progress"):
			v, err := s.Number()
			if err != nil {
				return errors.New("progress is not a number")
			}
			p.progress, err = parseFloat(v)
			hasProgress = err == nil
			return err
		case keyIs(key, esc, "total"):
			if s.Peek() == 'n' {
				_, err := s.Value()
				return err
			}
			v, err := s.Number()
			if err != nil {
				return errors.New("total is not a number")
			}
			p.total, err = parseFloat(v)
			p.hasTotal = err == nil
			return err
		case keyIs(key, esc, "message"):
			if s.Peek() != '"' {
				_, err := s.Value()
				return err
			}
			v, _, err := s.Str()
			p.message = v
			return err
		default:
			_, err := s.Value()
			return err
		}
	})
	if err != nil {
		return err
	}
	if p.token == nil {
		return errors.New("progress notification without progressToken")
	}
	if !hasProgress {
		return errors.New("progress notification without progress")
	}
	return nil
}

// tokenPrefix starts every progress token mcpchaos sends; the rest is the
// call's request id, so a token maps back to its call without a lookup table.
const tokenPrefix = "p"

func appendToken(b []byte, id int64) []byte {
	b = append(b, '"')
	b = append(b, tokenPrefix...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, '"')
}

// tokenID returns the request id encoded in a progress token we issued, or
// false if the token is not one of ours.
func tokenID(raw []byte, isStr bool) (int64, bool) {
	if !isStr || len(raw) <= len(tokenPrefix) || string(raw[:len(tokenPrefix)]) != tokenPrefix {
		return 0, false
	}
	// Only the canonical form we send: "p05" or "p+5" is not "p5".
	if c := raw[len(tokenPrefix)]; c < '1' || c > '9' {
		return 0, false
	}
	n, err := parseInt(raw[len(tokenPrefix):])
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// TokenID returns the request id of the call a progress token mcpchaos
// sent belongs to ("p17" → 17), or false for any other token.
func TokenID(token string) (int64, bool) { return tokenID([]byte(token), true) }

// decodeCancelledID reads the requestId of a notifications/cancelled.
func decodeCancelledID(s *scanner, params []byte) (int64, bool) {
	return decodeIntAt(s, params, "requestId")
}

// decodeIntAt reads the integer at path (object keys, outermost first) in
// params; false when it is absent, a string or not an integer.
func decodeIntAt(s *scanner, params []byte, path ...string) (int64, bool) {
	if params == nil {
		return 0, false
	}
	s.Reset(params)
	var id int64
	var ok bool
	var walk func(depth int) error
	walk = func(depth int) error {
		return s.Object(func(key []byte, esc bool) error {
			switch {
			case !keyIs(key, esc, path[depth]):
			case depth+1 < len(path) && s.Peek() == '{':
				return walk(depth + 1)
			case depth+1 == len(path) && s.Peek() != '"':
				v, err := s.Number()
				if err != nil {
					return err
				}
				id, err = parseInt(v)
				ok = err == nil
				return nil
			}
			_, err := s.Value()
			return err
		})
	}
	_ = walk(0)
	return id, ok
}

// decodeSubscriptionID reads the listen request's id a notification on a
// subscriptions/listen stream carries in params._meta (MetaSubscriptionID):
// how its messages are told apart on a shared stream (stdio).
func decodeSubscriptionID(s *scanner, params []byte) (int64, bool) {
	return decodeIntAt(s, params, "_meta", vocab.MetaSubscriptionID)
}
