package toolschema

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestExample(t *testing.T) {
	tests := []struct {
		name     string
		schema   string
		want     string // the arguments as JSON (keys sorted)
		optional []string
		invalid  bool // the arguments cannot satisfy the schema
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
