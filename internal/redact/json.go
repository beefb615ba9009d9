package redact

import (
	"encoding/json"
	"strings"
)

// JSON returns b, a JSON text (a document or one line of one), with the
// secrets replaced inside its string literals only: keys and values that
// are strings. Numbers, literals and punctuation are left alone, so the
// result stays valid JSON even when a secret looks like "true" or a number.
// A string literal that holds a secret is decoded, redacted and encoded
// again (it may then escape differently); the others are copied as they
// are. It returns b itself when nothing changed.
func (s *Set) JSON(b []byte) []byte {
	r, _ := s.snapshot()
	if r == nil {
		return b
	}
	// Most lines hold no secret: one scan per form says so.
	if !s.present(b) {
		return b
	}
	var out []byte
	last := 0
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		end := i + 1 // the closing quote
		for end < len(b) && b[end] != '"' {
			if b[end] == '\\' {
				end++
			}
			end++
		}
		end = min(end, len(b))
		lit := string(b[i+1 : end])
		// Every form of a value includes its JSON escapes, so a literal
		// holding a secret changes here; only then is it decoded.
		if r.Replace(lit) != lit {
			if rep, ok := redactLiteral(r, lit); ok {
				out = append(out, b[last:i+1]...)
				out = append(out, rep...)
				last = end
			}
		}
		i = end
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// redactLiteral decodes the inside of a JSON string literal, redacts it and
// encodes it again; false when nothing changed after all.
func redactLiteral(r *strings.Replacer, lit string) (string, bool) {
	var text string
	if err := json.Unmarshal([]byte(`"`+lit+`"`), &text); err != nil {
		// Not a valid literal (a torn line): redact the raw text.
		return r.Replace(lit), true
	}
	red := r.Replace(text)
	if red == text {
		return lit, false
	}
	return jsonEscape(red, true), true
}
