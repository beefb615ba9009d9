package termsafe

import (
	"testing"
)

type inner struct {
	Name string
	Tags []string
}

type copied struct {
	Title  string
	Inner  inner
	Ptr    *inner
	ByName map[string]int
	Any    any
	Raw    []byte
	hidden string
}

// TestCopyEscapesEveryString: every exported string of the copy is
// escaped, map keys and strings behind pointers, slices and interfaces
// included; bytes and unexported fields are kept as they are, and the
// original is left alone.
func TestCopyEscapesEveryString(t *testing.T) {
	const bad, want = "a\x1b[2Jb", `a\x1b[2Jb`
	in := &copied{Title: bad, Inner: inner{Name: bad, Tags: []string{bad}}, Ptr: &inner{Name: bad},
		ByName: map[string]int{bad: 1}, Any: bad, Raw: []byte(bad), hidden: bad}
	out := Copy(in)
	for name, got := range map[string]string{"title": out.Title, "inner name": out.Inner.Name,
		"slice": out.Inner.Tags[0], "pointer": out.Ptr.Name, "interface": out.Any.(string)} {
		if got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if out.ByName[want] != 1 || len(out.ByName) != 1 {
		t.Errorf("map keys %v, want the key escaped", out.ByName)
	}
	if string(out.Raw) != bad || out.hidden != bad {
		t.Errorf("raw %q, hidden %q: bytes and unexported fields changed", out.Raw, out.hidden)
	}
	if in.Title != bad || in.Inner.Tags[0] != bad || in.Ptr.Name != bad || in.ByName[bad] != 1 {
		t.Errorf("Copy changed its input: %+v", in)
	}
}
