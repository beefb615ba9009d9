package scenarios

import (
	"maps"
	"strconv"

	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

// The scenario file's shape as data: every mapping is a table of Fields
// (fieldtables.go). The decoder reads its key lists from the tables (an
// unknown key is one that is not in its mapping's table; a required key is
// one marked so), and JSONSchema turns the same tables into the JSON
// Schema that `mcpchaos schema` prints, so the two never drift apart. A
// test in cmd/mcpchaos checks that a value of the wrong type for any key
// is refused by both.

// Field is one key of a mapping and the type of its value.
type Field struct {
	Name     string
	Type     Type
	Required bool
	Doc      string // one line, shown by editors
}

// Type is the type of a value, as a JSON Schema (draft 2020-12) fragment.
type Type struct{ s map[string]any }

// fields is the table of one mapping.
type fields []Field

// names returns the keys of a table, in order.
func (fs fields) names() []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// required returns the keys marked required.
func (fs fields) required() []string {
	var out []string
	for _, f := range fs {
		if f.Required {
			out = append(out, f.Name)
		}
	}
	return out
}

// Patterns for the string syntaxes parsed in this package. They are loose
// on purpose (the parsers have the last word); they let an editor flag a
// value that cannot be right.
const (
	unitPattern     = `(ns|us|µs|ms|s|m|h)`
	durationPattern = `^\s*([0-9]*\.?[0-9]+` + unitPattern + `)+\s*$|^\s*0\s*$`
	ratePattern     = `^\s*[0-9]+\s*/\s*([0-9]*\.?[0-9]*` + unitPattern + `)+\s*$`
	distPattern     = `^\s*(uniform|exp)\s*\(.*\)\s*$|` + durationPattern
	sizePattern     = `^\s*[0-9]+(\.[0-9]+)?\s*([KMGT]i?B|B|[KMGT]i?|[kmgt]i?b?)?\s*$`
)

// StringType is any string.
func StringType() Type { return Type{map[string]any{"type": "string"}} }

// BoolType is true or false.
func BoolType() Type { return Type{map[string]any{"type": "boolean"}} }

// IntType is any integer.
func IntType() Type { return Type{map[string]any{"type": "integer"}} }

// IntAtLeastType is an integer >= min.
func IntAtLeastType(min int64) Type {
	return Type{map[string]any{"type": "integer", "minimum": min}}
}

// IntBetweenType is an integer from min to max.
func IntBetweenType(min, max int64) Type {
	return Type{map[string]any{"type": "integer", "minimum": min, "maximum": max}}
}

// NumberType is a number > min (strict) or >= min.
func NumberType(min float64, strict bool) Type {
	key := "minimum"
	if strict {
		key = "exclusiveMinimum"
	}
	return Type{map[string]any{"type": "number", key: min}}
}

// ProbType is a probability from 0 to 1.
func ProbType() Type {
	return Type{map[string]any{"type": "number", "minimum": 0, "maximum": 1}}
}

// DurationType is a Go duration string ("250ms", "1m30s"), or 0.
func DurationType() Type { return patterned(durationPattern, "250ms") }

// RateType is N/PERIOD ("50/1s", "3000/1m").
func RateType() Type {
	return Type{map[string]any{"type": "string", "pattern": ratePattern, "examples": []any{"50/1s"}}}
}

// DistType is a distribution of durations: "1s", "uniform(LOW, HIGH)" or
// "exp(MEAN)".
func DistType() Type { return patterned(distPattern, "uniform(200ms, 1.5s)") }

// ByteSizeType is a size ("2MiB", "512KB") or a number of bytes.
func ByteSizeType() Type {
	return Type{map[string]any{"type": []any{"string", "integer"}, "pattern": sizePattern, "minimum": 1}}
}

// patterned is a string matching pattern, or the integer 0 (a scalar
// written unquoted: the decoder reads it as text).
func patterned(pattern, example string) Type {
	return Type{map[string]any{"type": []any{"string", "integer"}, "pattern": pattern,
		"minimum": 0, "maximum": 0, "examples": []any{example}}}
}

// EnumType is one of values. A value that reads as an integer ("2026") is
// also accepted written unquoted, as the decoder reads any scalar as text.
func EnumType(values ...string) Type {
	enum := make([]any, 0, len(values))
	for _, v := range values {
		enum = append(enum, v)
	}
	for _, v := range values {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			enum = append(enum, n)
		}
	}
	return Type{map[string]any{"enum": enum}}
}

// ListOf is a sequence of items of type t.
func ListOf(t Type) Type { return Type{map[string]any{"type": "array", "items": t.s}} }

// StringMapType is a mapping of string keys to scalars (read as text).
func StringMapType() Type {
	return Type{map[string]any{"type": "object", "additionalProperties": map[string]any{
		"type": []any{"string", "number", "integer", "boolean", "null"}}}}
}

// AnyObjectType is any mapping (tool arguments).
func AnyObjectType() Type { return Type{map[string]any{"type": "object"}} }

// ObjectType is a mapping of exactly these keys.
func ObjectType(fs ...Field) Type { return objectOf(fields(fs)) }

// objectOf is a mapping of the keys of fs, and no other.
func objectOf(fs fields) Type {
	props := make(map[string]any, len(fs))
	for _, f := range fs {
		s := maps.Clone(f.Type.s)
		if f.Doc != "" {
			s["description"] = f.Doc
		}
		props[f.Name] = s
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if req := fs.required(); len(req) > 0 {
		s["required"] = req
	}
	return Type{s}
}

// oneKeyOf is objectOf where exactly one of keys must be written.
func oneKeyOf(fs fields, keys ...string) Type {
	t := objectOf(fs)
	var alts []any
	for _, k := range keys {
		alts = append(alts, map[string]any{"required": []any{k}})
	}
	t.s["oneOf"] = alts
	return t
}

// FaultKind is what the schema needs of one fault kind (package faults
// owns the kinds): its name, whether the keys of per-call faults
// (probability, tools) and of timed faults (after, after_progress) apply,
// and its own keys.
type FaultKind struct {
	Name           string
	PerCall, Timed bool
	Fields         []Field
}

// SchemaID is the $id of the scenario schema: where docs/scenario.schema.json
// is published.
const SchemaID = "https://raw.githubusercontent.com/mcpchaos/mcpchaos/main/docs/scenario.schema.json"

// JSONSchema returns the JSON Schema (draft 2020-12) of scenario files,
// with a branch per fault kind. It checks keys, types, enums and simple
// ranges; rules that span keys (exactly one load model, timeouts.max >=
// timeouts.idle) are left to `mcpchaos validate`.
func JSONSchema(kinds []FaultKind) map[string]any {
	s := maps.Clone(objectOf(topFields(kinds)).s)
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["$id"] = SchemaID
	s["title"] = "mcpchaos scenario"
	s["description"] = "A scenario file of mcpchaos (https://github.com/mcpchaos/mcpchaos): the target, the load, the faults, the orphan probes and the checks."
	return s
}

// faultType is one entry of the faults list: the shared keys, and per
// kind the keys that apply to it.
func faultType(kinds []FaultKind) Type {
	names := make([]string, len(kinds))
	var branches []any
	shared := fields{{Name: "kind", Type: Type{}, Required: true, Doc: "the fault kind"}}
	for i, k := range kinds {
		names[i] = k.Name
		fs := fields{{Name: "kind", Type: Type{map[string]any{"const": k.Name}}, Required: true}}
		if k.PerCall {
			fs = append(fs, perCallFields...)
		}
		if k.Timed {
			fs = append(fs, timedFields...)
		}
		fs = append(fs, k.Fields...)
		branches = append(branches, map[string]any{
			"if":   map[string]any{"properties": map[string]any{"kind": map[string]any{"const": k.Name}}, "required": []any{"kind"}},
			"then": objectOf(fs).s,
		})
	}
	shared[0].Type = EnumType(names...)
	t := Type{map[string]any{"type": "object", "required": []any{"kind"},
		"properties": objectOf(shared).s["properties"], "allOf": branches}}
	return t
}

// builtinFields are the keys of target.builtin: the transport and one key
// per knob of knobs.Table.
func builtinFields() fields {
	fs := fields{{Name: "transport", Type: EnumType(TransportHTTP, TransportStdio), Doc: "how mcpchaos talks to the built-in target"}}
	for _, k := range knobs.Table {
		if !k.NotInFile {
			fs = append(fs, Field{Name: k.Name, Type: knobType(k), Doc: k.Doc})
		}
	}
	return fs
}

// knobType is the schema of a knob's value (see knobText for how the
// decoder reads it).
func knobType(k knobs.Knob) Type {
	switch k.Kind {
	case knobs.Bool:
		return BoolType()
	case knobs.Prob:
		return ProbType()
	case knobs.Float:
		return Type{map[string]any{"type": "number", "minimum": k.Min, "maximum": k.Max}}
	case knobs.Int:
		return Type{map[string]any{"type": "integer", "minimum": int64(k.Min), "maximum": int64(k.Max)}}
	case knobs.Seed:
		return IntType()
	case knobs.Duration:
		return DurationType()
	case knobs.RateKind:
		return RateType()
	case knobs.Enum:
		return EnumType(k.Values...)
	}
	return StringType()
}

// orNull is t or null (a mapping written with no value is an empty one).
func (t Type) orNull() Type {
	s := maps.Clone(t.s)
	if typ, ok := s["type"].(string); ok {
		s["type"] = []any{typ, "null"}
	}
	return Type{s}
}

// nonEmpty is a string or list type that must not be empty.
func (t Type) nonEmpty() Type {
	s := maps.Clone(t.s)
	if s["type"] == "array" {
		s["minItems"] = 1
	} else {
		s["minLength"] = 1
	}
	return Type{s}
}
