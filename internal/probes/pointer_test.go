package probes

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestParsePointer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Pointer
		wantErr string
	}{
		{in: "", want: Pointer{}},
		{in: "/", want: Pointer{""}},
		{in: "/a/b", want: Pointer{"a", "b"}},
		{in: "/a~1b", want: Pointer{"a/b"}},
		{in: "/m~0n", want: Pointer{"m~n"}},
		{in: "/~01", want: Pointer{"~1"}}, // not "/"
		{in: "/~10", want: Pointer{"/0"}},
		{in: "//", want: Pointer{"", ""}},
		{in: "/a/", want: Pointer{"a", ""}},
		{in: "a", wantErr: `parse json pointer "a": does not start with "/"`},
		{in: "#/a", wantErr: `does not start with "/"`},
		{in: "/a~", wantErr: `token "a~" has a "~"`},
		{in: "/~2", wantErr: `token "~2" has a "~"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePointer(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParsePointer(%q) = %q, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) || got == nil {
				t.Fatalf("ParsePointer(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			if got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
		})
	}
}

// rfcDoc is the example document of RFC 6901, section 5, plus nesting.
const rfcDoc = `{
	"foo": ["bar", "baz"],
	"": 0,
	"a/b": 1,
	"c%d": 2,
	"e^f": 3,
	"g|h": 4,
	"i\\j": 5,
	"k\"l": 6,
	" ": 7,
	"m~n": 8,
	"nested": {"list": [{"n": 10}, {"n": 11}], "null": null, "flag": true}
}`

func TestPointerResolve(t *testing.T) {
	t.Parallel()
	doc, err := decodeJSON([]byte(rfcDoc))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ptr     string
		want    string // the value, re-encoded as JSON
		wantErr string
	}{
		{ptr: "/foo", want: `["bar","baz"]`},
		{ptr: "/foo/0", want: `"bar"`},
		{ptr: "/foo/1", want: `"baz"`},
		{ptr: "/", want: `0`},
		{ptr: "/a~1b", want: `1`},
		{ptr: "/c%d", want: `2`},
		{ptr: "/e^f", want: `3`},
		{ptr: "/g|h", want: `4`},
		{ptr: "/i\\j", want: `5`},
		{ptr: "/k\"l", want: `6`},
		{ptr: "/ ", want: `7`},
		{ptr: "/m~0n", want: `8`},
		{ptr: "/nested/list/1/n", want: `11`},
		{ptr: "/nested/null", want: `null`},
		{ptr: "/missing", wantErr: `key "missing" not found in the object at ""`},
		{ptr: "/nested/nope", wantErr: `key "nope" not found in the object at "/nested"`},
		{ptr: "/foo/2", wantErr: `array at "/foo": index "2" out of range (length 2)`},
		{ptr: "/foo/-", wantErr: `index "-" (past the end)`},
		{ptr: "/foo/01", wantErr: `invalid index "01"`},
		{ptr: "/foo/-1", wantErr: `invalid index "-1"`},
		{ptr: "/foo/1e0", wantErr: `invalid index "1e0"`},
		{ptr: "/foo/", wantErr: `invalid index ""`},
		{ptr: "/foo/99999999999999999999999", wantErr: `out of range`},
		{ptr: "/foo/0/x", wantErr: `cannot take "x" from a string "bar" at "/foo/0"`},
		{ptr: "/nested/flag/x", wantErr: `cannot take "x" from true`},
		{ptr: "/nested/null/x", wantErr: `cannot take "x" from null`},
	}
	for _, tt := range tests {
		t.Run(tt.ptr, func(t *testing.T) {
			p, err := ParsePointer(tt.ptr)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Resolve(doc)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Resolve = %v, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(got)
			if string(b) != tt.want {
				t.Errorf("Resolve = %s, want %s", b, tt.want)
			}
		})
	}
	t.Run("root", func(t *testing.T) {
		got, err := Pointer{}.Resolve(doc)
		if err != nil || got == nil {
			t.Fatalf("the empty pointer: %v, %v; want the whole document", got, err)
		}
		if m, ok := got.(map[string]any); !ok || len(m) != 11 {
			t.Errorf("the empty pointer gave %s, want the document", describeJSON(got))
		}
	})
}

func FuzzPointer(f *testing.F) {
	f.Add([]byte(rfcDoc), "/nested/list/0/n")
	f.Add([]byte(`[1,[2,[3]]]`), "/1/1/0")
	f.Add([]byte(`{"a~b/c":1}`), "/a~0b~1c")
	f.Add([]byte(`"x"`), "")
	f.Add([]byte(`{}`), "/~")
	f.Fuzz(func(t *testing.T, doc []byte, ptr string) {
		p, err := ParsePointer(ptr)
		if err != nil {
			return
		}
		if s := p.String(); s != ptr {
			t.Fatalf("ParsePointer(%q).String() = %q", ptr, s)
		}
		v, err := decodeJSON(doc)
		if err != nil {
			return
		}
		got, err := p.Resolve(v)
		if err == nil {
			_ = describeJSON(got)
		}
		_, _ = resultNumber(json.RawMessage(`{"structuredContent":`+string(doc)+`}`), p)
	})
}
