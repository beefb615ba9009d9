package toolschema

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// recursiveSchema is 250 bytes whose arguments, expanded without bound,
// would be ten to the depth of values: a node whose ten required
// properties are each a node.
const recursiveSchema = `{"type":"object","required":["a","b","c","d","e","f","g","h","i","j"],"properties":{
"a":{"$ref":"#"},"b":{"$ref":"#"},"c":{"$ref":"#"},"d":{"$ref":"#"},"e":{"$ref":"#"},
"f":{"$ref":"#"},"g":{"$ref":"#"},"h":{"$ref":"#"},"i":{"$ref":"#"},"j":{"$ref":"#"}}}`

// TestExampleRecursiveIsQuick: the recursive schema is given up on at
// once, not after a walk of its expansion (which once took 3 GB).
func TestExampleRecursiveIsQuick(t *testing.T) {
	s, err := Compile("tool", []byte(recursiveSchema))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, _, err := s.Example(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Example: %v, want ErrTooLarge", err)
	}
	if took := time.Since(start); took > 10*time.Second { // generous: 1 ms unloaded
		t.Errorf("Example took %s", took)
	}
}

func TestExample(t *testing.T) {
	tests := []struct {
		name     string
		schema   string
		want     string // the arguments as JSON (keys sorted)
		optional []string
		invalid  bool // the arguments cannot satisfy the schema
		tooLarge bool // Example gives up: ErrTooLarge, no arguments
	}{
		{name: "defaults of optional knobs", schema: stepSchema, want: `{"step_ms":100,"steps":10}`},
		{name: "required string, optional left out", schema: strictSchema, want: `{"query":"example"}`,
			optional: []string{"limit", "mode", "tags"}},
		{name: "no properties", schema: `{"type":"object"}`, want: `{}`},
		{name: "types and bounds", schema: `{"type":"object","required":["i","n","b","a","o","x","nul"],"properties":{
			"i":{"type":"integer","minimum":5},"n":{"type":"number","exclusiveMinimum":0.5},"b":{"type":"boolean"},
			"a":{"type":"array","minItems":2,"items":{"type":"integer","maximum":-3}},
			"o":{"type":"object","required":["k"],"properties":{"k":{"type":"string","minLength":9}}},
			"x":{},"nul":{"type":["null","integer"]}}}`,
			want: `{"a":[-3,-3],"b":false,"i":5,"n":1.5,"nul":1,"o":{"k":"examplexx"},"x":"example"}`},
		{name: "const, examples and enum come first", schema: `{"type":"object","required":["c","e","en"],"properties":{
			"c":{"const":"fixed"},"e":{"type":"string","examples":["from-example"]},"en":{"type":"string","enum":["b","a"]}}}`,
			want: `{"c":"fixed","e":"from-example","en":"b"}`},
		{name: "formats", schema: `{"type":"object","required":["u","m","d"],"properties":{
			"u":{"type":"string","format":"uri"},"m":{"type":"string","format":"email"},"d":{"type":"string","format":"date-time"}}}`,
			want: `{"d":"2026-01-01T00:00:00Z","m":"user@example.com","u":"https://example.com/"}`},
		{name: "refs and anyOf with null", schema: `{"type":"object","required":["r","any"],"$defs":{"pos":{"type":"integer","minimum":1}},
			"properties":{"r":{"$ref":"#/$defs/pos"},"any":{"anyOf":[{"type":"null"},{"type":"string","maxLength":3}]}}}`,
			want: `{"any":"exa","r":1}`},
		{name: "integer above a fractional minimum", schema: `{"type":"object","required":["i"],"properties":{"i":{"type":"integer","minimum":2.5}}}`,
			want: `{"i":3}`},
		{name: "recursive schema ends", schema: `{"type":"object","required":["n"],"$defs":{"node":{"type":"object","required":["next"],
			"properties":{"next":{"$ref":"#/$defs/node"}}}},"properties":{"n":{"$ref":"#/$defs/node"}}}`, invalid: true},
		{name: "ten required children of its own kind", schema: recursiveSchema, tooLarge: true},
		{name: "a default nested 200 levels", schema: `{"type":"object","required":["a"],"properties":{"a":{"default":` +
			strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}}}`, tooLarge: true},
		{name: "a default of 100,000 values", schema: `{"type":"object","required":["a"],"properties":{"a":{"default":[` +
			strings.Repeat("1,", 99_999) + `1]}}}`, tooLarge: true},
		{name: "a 1 MB example", schema: `{"type":"object","required":["a"],"properties":{"a":{"type":"string","examples":["` +
			strings.Repeat("x", 1<<20) + `"]}}}`, tooLarge: true},
		{name: "a pattern it cannot meet", schema: `{"type":"object","required":["id"],"properties":{"id":{"type":"string","pattern":"^[0-9]+$"}}}`,
			want: `{"id":"example"}`, invalid: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile("tool", []byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			args, optional, err := s.Example()
			if tt.tooLarge {
				if !errors.Is(err, ErrTooLarge) || args != nil {
					t.Fatalf("Example = %.200v, %v; want no arguments and ErrTooLarge", args, err)
				}
				return
			}
			if (err != nil) != tt.invalid {
				t.Fatalf("Example error = %v, want invalid %v", err, tt.invalid)
			}
			got, _ := json.Marshal(args)
			if tt.want != "" && string(got) != tt.want {
				t.Errorf("Example = %s, want %s", got, tt.want)
			}
			if !slices.Equal(optional, tt.optional) {
				t.Errorf("optional = %v, want %v", optional, tt.optional)
			}
		})
	}
}

func TestParams(t *testing.T) {
	s, err := Compile("tool", []byte(strictSchema))
	if err != nil {
		t.Fatal(err)
	}
	want := []Param{
		{Name: "query", Type: "string", Required: true},
		{Name: "limit", Type: "integer"},
		{Name: "mode", Enum: `"fast", "exact"`},
		{Name: "tags", Type: "array"},
	}
	if got := s.Params(); !slices.Equal(got, want) {
		t.Errorf("Params =\n%+v\nwant\n%+v", got, want)
	}
	s, _ = Compile("tool", []byte(stepSchema))
	if got := s.Params(); len(got) != 2 || got[0].Name != "step_ms" || got[0].Default != "100" || got[1].Description != "number of steps" {
		t.Errorf("Params of the step schema = %+v", got)
	}
}
