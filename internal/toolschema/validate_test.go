package toolschema

import (
	"errors"
	"strings"
	"testing"
)

// stepSchema is the built-in target's slow_task schema.
const stepSchema = `{"type":"object","properties":{
  "steps":{"type":"integer","default":10,"minimum":0,"maximum":100000,"description":"number of steps"},
  "step_ms":{"type":"integer","default":100,"minimum":0,"maximum":600000}}}`

const strictSchema = `{"type":"object","additionalProperties":false,"required":["query"],"properties":{
  "query":{"type":"string","minLength":1},
  "limit":{"type":"integer","minimum":1},
  "tags":{"type":"array","items":{"type":"string"}},
  "mode":{"enum":["fast","exact"]}}}`

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		args   string
		want   []string // each problem, "at PATH: ..." prefixes
	}{
		{name: "valid", schema: strictSchema, args: `{"query":"mcp","limit":3,"tags":["a"],"mode":"fast"}`},
		{name: "no arguments and none required", schema: stepSchema, args: ``},
		{name: "absent schema takes any object", schema: ``, args: `{"x":1}`},
		{name: "wrong type", schema: stepSchema, args: `{"steps":"ten"}`, want: []string{"at /steps: got string, want integer"}},
		{name: "below minimum", schema: stepSchema, args: `{"step_ms":-1}`, want: []string{"at /step_ms: minimum: got -1, want 0"}},
		{name: "missing required", schema: strictSchema, args: `{}`, want: []string{"at /: missing property 'query'"}},
		{name: "array item", schema: strictSchema, args: `{"query":"q","tags":["a",2]}`, want: []string{"at /tags/1: got number, want string"}},
		{name: "enum and extra key", schema: strictSchema, args: `{"query":"q","mode":"slow","lmit":1}`,
			want: []string{"at /: additional properties 'lmit' not allowed", "at /mode: value must be one of 'fast', 'exact'"}},
		{name: "draft-07 with a definitions ref", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
			"properties":{"n":{"$ref":"#/definitions/n"}},"definitions":{"n":{"type":"integer"}}}`, args: `{"n":1.5}`,
			want: []string{"at /n: got number, want integer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile("tool", []byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			err = s.Validate([]byte(tt.args))
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var ae *ArgsError
			if !errors.As(err, &ae) {
				t.Fatalf("Validate = %v, want an *ArgsError", err)
			}
			if len(ae.Problems) != len(tt.want) {
				t.Fatalf("problems %v, want %d: %q", ae.Problems, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if got := ae.Problems[i].String(); !strings.HasPrefix(got, w) {
					t.Errorf("problem %d = %q, want %q", i, got, w)
				}
			}
			if !strings.Contains(err.Error(), `inputSchema of tool "tool"`) {
				t.Errorf("error %q does not name the tool", err)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{name: "not JSON", schema: `{"type":`, want: `tool "t": inputSchema is not JSON`},
		{name: "not a schema", schema: `{"type":"strin"}`, want: `tool "t": inputSchema is not a valid JSON Schema`},
		{name: "remote ref is not fetched", schema: `{"$ref":"http://127.0.0.1:1/s.json"}`, want: "mcpchaos does not fetch schemas"},
		{name: "file ref is not read", schema: `{"$ref":"file:///etc/passwd"}`, want: "mcpchaos does not fetch schemas"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile("t", []byte(tt.schema))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Compile = %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}
