package redact

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestWriterSplitWrites(t *testing.T) {
	const secret = "tok-0123456789"
	text := "line one " + secret + "\nstatus " + secret + "\rlast " + secret
	want := strings.ReplaceAll(text, secret, Mask)
	for _, tt := range []struct {
		name  string
		chunk int
	}{{"whole", len(text)}, {"bytes", 1}, {"threes", 3}, {"sevens", 7}} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := New(secret).Writer(&out)
			for i := 0; i < len(text); i += tt.chunk {
				if _, err := w.Write([]byte(text[i:min(i+tt.chunk, len(text))])); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if out.String() != want {
				t.Errorf("wrote %q, want %q", out.String(), want)
			}
		})
	}
}

func TestWriterEmitsCompleteLines(t *testing.T) {
	var out bytes.Buffer
	w := New("abcdef").Writer(&out)
	w.Write([]byte("one abcdef\ntwo abc"))
	if out.String() != "one [redacted]\n" {
		t.Errorf("before the line ended: %q", out.String())
	}
	w.Write([]byte("def\n"))
	if out.String() != "one [redacted]\ntwo [redacted]\n" {
		t.Errorf("after: %q", out.String())
	}
}

// A line longer than maxPending is written in parts, never cutting a
// secret.
func TestWriterLongLine(t *testing.T) {
	const secret = "a-long-secret-value"
	var in strings.Builder
	for in.Len() < 3*maxPending {
		in.WriteString("xx " + secret + " ")
	}
	var out bytes.Buffer
	w := New(secret).Writer(&out)
	for s := in.String(); len(s) > 0; {
		n := min(len(s), 4093)
		w.Write([]byte(s[:n]))
		s = s[n:]
		if len(w.buf) > maxPending+4093 {
			t.Fatalf("holding %d bytes", len(w.buf))
		}
	}
	w.Flush()
	if want := strings.ReplaceAll(in.String(), secret, Mask); out.String() != want {
		t.Errorf("output differs from the redacted input (%d vs %d bytes)", out.Len(), len(want))
	}
}

func TestJSONWriter(t *testing.T) {
	var out bytes.Buffer
	w := New("true-secret", "12345678").JSONWriter(&out)
	w.Write([]byte(`{"a":"true-secret","n":12345678}` + "\n" + `{"b":"x`))
	w.Write([]byte(`12345678"}` + "\n"))
	want := `{"a":"[redacted]","n":12345678}` + "\n" + `{"b":"x[redacted]"}` + "\n"
	if out.String() != want {
		t.Errorf("wrote %q, want %q", out.String(), want)
	}
}

func TestWriterUnwrap(t *testing.T) {
	var out bytes.Buffer
	if New().Writer(&out).Unwrap() != &out {
		t.Error("Unwrap does not return the underlying writer")
	}
}

func TestContext(t *testing.T) {
	if FromContext(context.Background()) != nil {
		t.Error("a bare context carries a set")
	}
	s := New()
	if FromContext(NewContext(context.Background(), s)) != s {
		t.Error("the set did not come back")
	}
}

func FuzzWriter(f *testing.F) {
	f.Add("secret-one", "a secret-one b\nsecret-\rone", 3)
	f.Fuzz(func(t *testing.T, secret, text string, chunk int) {
		if chunk <= 0 || chunk > len(text)+1 {
			chunk = len(text) + 1
		}
		s := New(secret)
		var out bytes.Buffer
		w := s.Writer(&out)
		for i := 0; i < len(text); i += chunk {
			w.Write([]byte(text[i:min(i+chunk, len(text))]))
		}
		w.Flush()
		// Redacting per line equals redacting the whole, when no form holds
		// a line end.
		var want strings.Builder
		for _, line := range splitLines(text) {
			want.WriteString(s.String(line))
		}
		if Redactable(secret) && !strings.ContainsAny(secret, "\r\n") && out.String() != want.String() {
			t.Errorf("wrote %q, want %q", out.String(), want.String())
		}
	})
}

// splitLines splits after every \n and \r.
func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
