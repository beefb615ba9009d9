package probes

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Pointer is a parsed JSON pointer (RFC 6901): its reference tokens,
// unescaped. The empty Pointer refers to the whole document.
type Pointer []string

// ParsePointer parses a JSON pointer: "" is the whole document; otherwise
// it starts with "/" and each token between slashes has "~1" for "/" and
// "~0" for "~" (any other "~" is an error).
func ParsePointer(s string) (Pointer, error) {
	if s == "" {
		return Pointer{}, nil
	}
	if s[0] != '/' {
		return nil, fmt.Errorf("parse json pointer %q: does not start with \"/\"", s)
	}
	raw := strings.Split(s[1:], "/")
	p := make(Pointer, len(raw))
	for i, tok := range raw {
		for j := 0; j < len(tok); j++ {
			if tok[j] == '~' && (j+1 == len(tok) || (tok[j+1] != '0' && tok[j+1] != '1')) {
				return nil, fmt.Errorf("parse json pointer %q: token %q has a \"~\" that is not \"~0\" or \"~1\"", s, tok)
			}
		}
		// "~1" first, then "~0", so that "~01" becomes "~1" and not "/".
		p[i] = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
	}
	return p, nil
}

// String returns the pointer in its escaped form; ParsePointer(p.String())
// gives p back.
func (p Pointer) String() string {
	var b strings.Builder
	for _, tok := range p {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// Resolve returns the value p refers to in doc, a document decoded by
// encoding/json into any (map[string]any, []any, string, float64 or
// json.Number, bool, nil). A missing key, an index out of range or a
// token applied to a scalar is an error naming the pointer.
func (p Pointer) Resolve(doc any) (any, error) {
	cur := doc
	for i, tok := range p {
		at := p[:i].String() // where cur is, for errors
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return nil, fmt.Errorf("resolve json pointer %q: key %q not found in the object at %q", p.String(), tok, at)
			}
			cur = next
		case []any:
			idx, err := arrayIndex(tok, len(v))
			if err != nil {
				return nil, fmt.Errorf("resolve json pointer %q: array at %q: %w", p.String(), at, err)
			}
			cur = v[idx]
		default:
			return nil, fmt.Errorf("resolve json pointer %q: cannot take %q from %s at %q", p.String(), tok, describeJSON(cur), at)
		}
	}
	return cur, nil
}

// arrayIndex reads an array index token: "0" or digits without a leading
// zero, less than n.
func arrayIndex(tok string, n int) (int, error) {
	if tok == "-" {
		return 0, fmt.Errorf("index \"-\" (past the end) has no value")
	}
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, fmt.Errorf("invalid index %q", tok)
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return 0, fmt.Errorf("invalid index %q", tok)
		}
	}
	idx, err := strconv.Atoi(tok)
	if err != nil || idx >= n {
		return 0, fmt.Errorf("index %q out of range (length %d)", tok, n)
	}
	return idx, nil
}

// describeJSON says what kind of JSON value v is, quoting short values.
func describeJSON(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case string:
		if len(v) > 40 {
			return fmt.Sprintf("a string %q...", v[:40])
		}
		return fmt.Sprintf("a string %q", v)
	case json.Number:
		return "the number " + v.String()
	case float64:
		return "the number " + strconv.FormatFloat(v, 'g', -1, 64)
	case map[string]any:
		return "an object with " + count(len(v), "key")
	case []any:
		return "an array of " + count(len(v), "element")
	}
	return fmt.Sprintf("a %T", v)
}

// count returns "1 key", "2 keys".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
