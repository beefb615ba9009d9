package toolschema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Example returns arguments for the tool, made from what its schema says:
// every required property, and every optional one that has a default or a
// const (so a starter scenario shows the knobs a tool has). A value is, in
// order of preference, the property's const, default, first example or
// first enum value; else one made from its type and bounds (minimum,
// minLength, minItems, a format). optional names the optional properties
// left out. The arguments are checked against the schema: when they do not
// match (a pattern mcpchaos cannot satisfy, say), err says where, and the
// arguments are still returned, to be fixed by hand.
//
// The arguments are bounded (MaxExampleValues, MaxExampleBytes,
// MaxExampleDepth): past a bound, args is nil and err wraps ErrTooLarge.
func (s *Schema) Example() (args map[string]any, optional []string, err error) {
	root := deref(s.root)
	args = map[string]any{}
	b := &budget{}
	for name, p := range root.Properties {
		p = deref(p)
		switch {
		case slices.Contains(root.Required, name):
			args[name] = s.value(p, 1, b)
		case p != nil && (p.Const != nil || p.Default != nil):
			args[name] = s.value(p, 1, b)
		default:
			optional = append(optional, name)
			continue
		}
		b.spend(0, len(name), 1)
	}
	for _, name := range root.Required {
		if _, ok := args[name]; !ok {
			args[name] = "example" // required, but not described
			b.spend(1, len(name)+len("example"), 1)
		}
	}
	sort.Strings(optional)
	if b.over {
		return nil, optional, ErrTooLarge
	}
	raw, jerr := json.Marshal(args)
	if jerr != nil {
		return args, optional, jerr
	}
	return args, optional, s.Validate(raw)
}

// maxDepth bounds how deep Example goes into nested objects and arrays (a
// recursive schema would otherwise never end).
const maxDepth = 6

// value makes one value the schema s accepts, as far as it can tell,
// taking what it makes from b (nil once b is spent).
func (sc *Schema) value(s *jsonschema.Schema, depth int, b *budget) any {
	if s == nil || depth > maxDepth || b.over {
		return nil
	}
	if v, ok := given(s); ok {
		if !b.spendValue(v, depth) {
			return nil
		}
		return v
	}
	if s.Types == nil {
		if s.Ref != nil {
			return sc.value(s.Ref, depth+1, b)
		}
		for _, sub := range slices.Concat(s.AllOf, s.AnyOf, s.OneOf) {
			if t := typesOf(sub, 0); len(t) == 1 && t[0] == "null" {
				continue
			}
			return sc.value(deref(sub), depth+1, b)
		}
	}
	if !b.spend(1, 0, depth) {
		return nil
	}
	switch pickType(typesOf(s, 0), s) {
	case "object":
		obj := map[string]any{}
		for _, name := range s.Required {
			if !b.spend(0, len(name), depth) {
				return nil
			}
			obj[name] = sc.value(deref(s.Properties[name]), depth+1, b)
		}
		return obj
	case "array":
		return sc.array(s, depth, b)
	case "integer":
		return number(s, true)
	case "number":
		return number(s, false)
	case "boolean":
		return false
	case "null":
		return nil
	}
	t := sc.text(s)
	b.spend(0, len(t), depth)
	return t
}

// given returns the value the schema names itself: its const, default,
// first example or first enum value, in that order.
func given(s *jsonschema.Schema) (any, bool) {
	switch {
	case s.Const != nil:
		return *s.Const, true
	case s.Default != nil:
		return *s.Default, true
	case len(s.Examples) > 0:
		return s.Examples[0], true
	case s.Enum != nil && len(s.Enum.Values) > 0:
		return s.Enum.Values[0], true
	}
	return nil, false
}

// pickType chooses the type to make a value of: the first of the allowed
// types that is not null, in a fixed order; a schema that says nothing
// gets a string.
func pickType(types []string, s *jsonschema.Schema) string {
	for _, t := range []string{"object", "string", "integer", "number", "boolean", "array", "null"} {
		if slices.Contains(types, t) {
			return t
		}
	}
	if s.Properties != nil {
		return "object"
	}
	return "string"
}

func (sc *Schema) array(s *jsonschema.Schema, depth int, b *budget) []any {
	n := 0
	if s.MinItems != nil {
		n = *s.MinItems
	}
	out := make([]any, 0, min(n, 16))
	for i := 0; i < n && i < 16; i++ {
		item := s.Items2020
		switch it := s.Items.(type) {
		case *jsonschema.Schema:
			item = it
		case []*jsonschema.Schema:
			if i < len(it) {
				item = it[i]
			}
		}
		if i < len(s.PrefixItems) {
			item = s.PrefixItems[i]
		}
		out = append(out, sc.value(deref(item), depth+1, b))
	}
	return out
}

// number returns the minimum (or just above the exclusive minimum), else 1,
// kept under the maximum.
func number(s *jsonschema.Schema, integer bool) json.Number {
	v := big.NewRat(1, 1)
	switch {
	case s.Minimum != nil:
		v = new(big.Rat).Set(s.Minimum)
	case s.ExclusiveMinimum != nil:
		v = new(big.Rat).Add(s.ExclusiveMinimum, big.NewRat(1, 1))
	}
	if s.Maximum != nil && v.Cmp(s.Maximum) > 0 {
		v = new(big.Rat).Set(s.Maximum)
	}
	if integer && !v.IsInt() {
		n := new(big.Int).Quo(v.Num(), v.Denom()) // towards zero
		if v.Sign() > 0 {
			n.Add(n, big.NewInt(1)) // up, so a minimum still holds
		}
		return json.Number(n.String())
	}
	if v.IsInt() {
		return json.Number(v.Num().String())
	}
	f, _ := v.Float64()
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}

// formats are example strings for the common string formats.
var formats = map[string]string{
	"uri":       "https://example.com/",
	"url":       "https://example.com/",
	"iri":       "https://example.com/",
	"email":     "user@example.com",
	"date-time": "2026-01-01T00:00:00Z",
	"date":      "2026-01-01",
	"time":      "00:00:00Z",
	"uuid":      "00000000-0000-4000-8000-000000000000",
	"hostname":  "example.com",
	"ipv4":      "127.0.0.1",
	"ipv6":      "::1",
}

// text makes a string for s: one of its format, else "example", padded to
// minLength and cut to maxLength.
func (sc *Schema) text(s *jsonschema.Schema) string {
	out := "example"
	if name, ok := sc.keyword(s, "format"); ok {
		if f, ok := formats[fmt.Sprint(name)]; ok {
			out = f
		}
	}
	if s.MinLength != nil && len(out) < *s.MinLength {
		out += strings.Repeat("x", min(*s.MinLength, 4096)-len(out))
	}
	if s.MaxLength != nil && len(out) > *s.MaxLength {
		out = out[:max(*s.MaxLength, 0)]
	}
	return out
}
