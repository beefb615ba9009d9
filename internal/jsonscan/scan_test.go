package jsonscan

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestScannerValue(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		err      error
	}{
		{"object", `{"a": [1, -2.5e3, "x\u00e9", true, false, null], "b": {}}`, nil},
		{"white space around", " \t\r\n 1 \n", nil},
		{"leading zero", `01`, ErrTrailing},
		{"bare minus", `-`, ErrSyntax},
		{"fraction without digits", `1.`, ErrSyntax},
		{"bad escape", `"\x"`, ErrSyntax},
		{"short unicode escape", `"\u12"`, ErrSyntax},
		{"control character", "\"a\tb\"", ErrSyntax},
		{"cut short", `{"a":1`, ErrSyntax},
		{"missing colon", `{"a" 1}`, ErrSyntax},
		{"trailing comma", `[1,]`, ErrSyntax},
		{"too deep", strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2), ErrTooDeep},
		{"misspelt literal", `nul`, ErrSyntax},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var s Scanner
			s.Reset([]byte(tt.in))
			_, err := s.Value()
			if err == nil {
				err = s.End()
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("Value(%q): %v, want %v", tt.in, err, tt.err)
			}
		})
	}
}

func TestScannerStr(t *testing.T) {
	var s Scanner
	s.Reset([]byte(`"plain" "with \"escape\"" ` + "\"bad \xff byte\""))
	for _, want := range []struct {
		raw      string
		escaped  bool
		badUTF8  bool
		unquoted string
	}{
		{"plain", false, false, "plain"},
		{`with \"escape\"`, true, false, `with "escape"`},
		{"bad \xff byte", false, true, "bad \xff byte"},
	} {
		raw, esc, err := s.Str()
		if err != nil || string(raw) != want.raw || esc != want.escaped || s.BadUTF8 != want.badUTF8 {
			t.Fatalf("Str() = %q, %v, %v (BadUTF8 %v); want %q, %v (BadUTF8 %v)", raw, esc, err, s.BadUTF8, want.raw, want.escaped, want.badUTF8)
		}
		if esc && Unescape(raw) != want.unquoted {
			t.Errorf("Unescape(%q) = %q, want %q", raw, Unescape(raw), want.unquoted)
		}
	}
	if !KeyIs([]byte(`\u0069d`), true, "id") || KeyIs([]byte("id"), false, "ID") {
		t.Error("KeyIs: an escaped key must match its text, and keys match case-sensitively")
	}
}

// FuzzScanner: the scanner accepts exactly what encoding/json accepts as
// one value (nesting up to MaxDepth), and Value returns it whole.
func FuzzScanner(f *testing.F) {
	for _, seed := range []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `[1,-0.5e+3,"\u00e9\n",null]`, `"\xff"`, ` 01 `, `{"a":}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Scanner
		s.Reset(b)
		v, err := s.Value()
		if errors.Is(err, ErrTooDeep) {
			return
		}
		if err == nil {
			err = s.End()
		}
		if got, want := err == nil, json.Valid(b); got != want {
			t.Fatalf("%q: scanner error %v, encoding/json valid %v", b, err, want)
		}
		if err == nil && strings.TrimSpace(string(b)) != string(v) {
			t.Fatalf("%q: Value returned %q", b, v)
		}
	})
}
