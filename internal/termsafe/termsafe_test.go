package termsafe

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	tests := []struct {
		name, in, escape, lines string
	}{
		{"plain text is kept", "echo — 10 ms, ünïcode \\n", "echo — 10 ms, ünïcode \\n", "echo — 10 ms, ünïcode \\n"},
		{"line feed and tab", "a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"carriage return", "ok\rResult FAIL", `ok\rResult FAIL`, `ok\rResult FAIL`},
		{"OSC title", "\x1b]0;pwned\x07", `\x1b]0;pwned\a`, `\x1b]0;pwned\a`},
		{"clear screen", "\x1b[2J", `\x1b[2J`, `\x1b[2J`},
		{"NUL and DEL", "a\x00b\x7f", `a\x00b\x7f`, `a\x00b\x7f`},
		{"C1 CSI as UTF-8", "a\u009b2Jb\u0085", `a\u009b2Jb\u0085`, `a\u009b2Jb\u0085`},
		{"C1 CSI as a raw byte", "a\x9b2J", `a\x9b2J`, `a\x9b2J`},
		{"invalid UTF-8", "\xff\xc3", `\xff\xc3`, `\xff\xc3`},
		{"U+00A0 is not a control", "a\u00a0b", "a\u00a0b", "a\u00a0b"},
		{"line separator", "ok\u2028Result PASS", `ok\u2028Result PASS`, `ok\u2028Result PASS`},
		{"right-to-left override", "a\u202eSSAP", `a\u202eSSAP`, `a\u202eSSAP`},
		{"isolate", "\u2066x\u2069", `\u2066x\u2069`, `\u2066x\u2069`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Escape(tt.in); got != tt.escape {
				t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.escape)
			}
			if got := Lines(tt.in); got != tt.lines {
				t.Errorf("Lines(%q) = %q, want %q", tt.in, got, tt.lines)
			}
		})
	}
}

// TestWriter: a character split across writes is kept whole; controls
// split from their sequence are still escaped.
func TestWriter(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	for _, chunk := range []string{"a\xc2", "\x9b2J ", "é"[:1], "é"[1:], "\x1b", "[K\n", "\xe2\x82"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := `a\u009b2J é\x1b[K` + "\n" + `\xe2\x82`; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// FuzzEscape: no control character and no invalid byte ever comes out of
// Escape, none but line feed and tab out of Lines and Writer, and text
// without them comes out as it went in; valid JSON keeps its meaning
// through JSON and loses its DEL, C1 and invalid bytes (the whitespace
// outside strings is JSON's own).
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "plain", "a\nb", "\x1b]52;c;aGk=\x07", "\u009b\x9b\xff", "tab\there", "é\r\n"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		check := func(what, out string, keep string) {
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q: not UTF-8", what, s, out)
			}
			for _, r := range out {
				if (r < 0x20 || r >= 0x7f && r <= 0x9f) && !strings.ContainsRune(keep, r) {
					t.Fatalf("%s(%q) = %q holds %U", what, s, out, r)
				}
			}
		}
		check("Escape", Escape(s), "")
		check("Lines", Lines(s), "\n\t")
		var out bytes.Buffer
		w := NewWriter(&out)
		cut = min(max(cut, 0), len(s))
		_, _ = w.Write([]byte(s[:cut]))
		_, _ = w.Write([]byte(s[cut:]))
		_ = w.Flush()
		check("Writer", out.String(), "\n\t")
		if utf8.ValidString(s) && out.String() != Lines(s) {
			t.Fatalf("Writer wrote %q in two writes, Lines gives %q", out.String(), Lines(s))
		}
		if json.Valid([]byte(s)) {
			out := string(JSON([]byte(s)))
			check("JSON", out, "\n\t\r")
			var a, b any
			_ = json.Unmarshal([]byte(s), &a)
			if err := json.Unmarshal([]byte(out), &b); err != nil || !reflect.DeepEqual(a, b) {
				t.Fatalf("JSON(%q) = %q decodes to %v (%v), the input to %v", s, out, b, err, a)
			}
		}
		if clean := Escape(s); Escape(clean) != clean {
			t.Fatalf("Escape(%q) = %q is escaped again", s, clean)
		}
	})
}

// TestJSON: DEL, C1 and invalid bytes become JSON escapes that decode to
// what a decoder reads from the raw bytes.
func TestJSON(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", `{"a":"é\u001b"}`, `{"a":"é\u001b"}`},
		{"DEL and C1", "{\"a\":\"x\x7fy\u009bz\"}", `{"a":"x\u007fy\u009bz"}`},
		{"invalid byte", "[\"\xff\"]", `["\ufffd"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := JSON([]byte(tt.in))
			if string(got) != tt.want {
				t.Fatalf("JSON(%q) = %q, want %q", tt.in, got, tt.want)
			}
			var a, b any
			if err := json.Unmarshal([]byte(tt.in), &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(got, &b); err != nil || !reflect.DeepEqual(a, b) {
				t.Errorf("decodes to %v (%v), the input to %v", b, err, a)
			}
		})
	}
}
