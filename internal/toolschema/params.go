package toolschema

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Param is one top-level property of an input schema, as a table row.
type Param struct {
	Name        string
	Type        string // "integer", "string|null", "" when the schema says nothing
	Required    bool
	Default     string // the default as JSON; "" when none
	Enum        string // the allowed values as JSON, comma-separated; "" when any
	Description string
}

// Params lists the schema's top-level properties: the required ones first,
// in the schema's order, then the others by name. Required properties the
// schema does not describe are listed too, without a type.
func (s *Schema) Params() []Param {
	root := deref(s.root)
	var out []Param
	for _, name := range root.Required {
		out = append(out, param(name, root.Properties[name], true))
	}
	var rest []string
	for name := range root.Properties {
		if !slices.Contains(root.Required, name) {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	for _, name := range rest {
		out = append(out, param(name, root.Properties[name], false))
	}
	return out
}

func param(name string, p *jsonschema.Schema, required bool) Param {
	out := Param{Name: name, Required: required}
	if p == nil {
		return out
	}
	p = deref(p)
	out.Type = strings.Join(typesOf(p, 0), "|")
	out.Description = p.Description
	if p.Default != nil {
		out.Default = jsonText(*p.Default)
	}
	switch {
	case p.Enum != nil:
		vals := make([]string, len(p.Enum.Values))
		for i, v := range p.Enum.Values {
			vals[i] = jsonText(v)
		}
		out.Enum = strings.Join(vals, ", ")
	case p.Const != nil:
		out.Enum = jsonText(*p.Const)
	}
	return out
}

// typesOf names the JSON types a schema allows, following $ref, anyOf and
// oneOf; nil when it does not say.
func typesOf(s *jsonschema.Schema, depth int) []string {
	if s == nil || depth > 8 {
		return nil
	}
	if s.Types != nil {
		return s.Types.ToStrings()
	}
	if s.Ref != nil {
		return typesOf(s.Ref, depth+1)
	}
	var out []string
	for _, sub := range slices.Concat(s.AnyOf, s.OneOf) {
		for _, t := range typesOf(sub, depth+1) {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	if out == nil && s.Properties != nil {
		return []string{"object"}
	}
	return out
}

// jsonText renders a schema value as compact JSON.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return string(b)
}
