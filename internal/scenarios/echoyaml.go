package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

// The scenario as a results header records it (Echo) is encoding/json of
// the Scenario, whose keys are the Go field names: Orphans, Grace,
// FailOnViolation. EchoYAML writes it back in the keys the scenario file
// was written in, taking them from the field tables (through the schema
// they make), so a reader sees the scenario as they wrote it.

// echoSkipped are the fields of a Scenario that are no key of a file:
// positions, the path it was read from (a comment above the YAML) and
// what the decoder derives.
var echoSkipped = map[string]bool{"Pos": true, "File": true, "HasRoots": true}

// echoFaultKinds gives the schema of a fault entry every shared key (a
// kind's own keys are its Params, written as they stood in the file).
var echoFaultKinds = []FaultKind{{Name: "any", PerCall: true, Timed: true}}

// EchoYAML renders a results header's config (Echo's JSON) as YAML in a
// scenario file's keys, in the order Echo wrote them: each Go field name
// becomes the key of its mapping's table whose name is the same without
// underscores (Grace → grace, FailOnViolation → fail_on_violation); a
// fault's own keys stand beside its kind; a check is the text it was
// written as; target.builtin has one key per knob, valued as serve reads
// it. The defaults the decoder filled in are shown; null values (absent
// sections), fields whose zero is no key in the file (echoZeroAbsent)
// and positions are not, so the YAML reads back as the same scenario
// (TestEchoYAMLReadsBack). A key no table names (an older file's
// field) keeps its name in snake case. It only renames keys: a masked
// value stays masked.
func EchoYAML(config json.RawMessage) ([]byte, error) {
	out, _, err := echoYAML(config)
	return out, err
}

// echoYAML is EchoYAML, and the fields that no key named (written in
// snake case), by their path.
func echoYAML(config json.RawMessage) ([]byte, []string, error) {
	dec := json.NewDecoder(bytes.NewReader(config))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, nil, fmt.Errorf("read the scenario's config: %w", err)
	}
	top, ok := v.(jsonObject)
	if !ok {
		return nil, nil, errors.New("read the scenario's config: not a JSON object")
	}
	var builtin struct {
		Target struct{ Builtin *BuiltinTarget }
	}
	if err := json.Unmarshal(config, &builtin); err != nil {
		return nil, nil, fmt.Errorf("read the scenario's config: %w", err)
	}
	e := &echo{builtin: builtin.Target.Builtin}
	out, err := yaml.MarshalWithOptions(e.mapping("", top, objectOf(topFields(echoFaultKinds)).s), yaml.Indent(2), yaml.IndentSequence(true))
	if err != nil {
		return nil, nil, fmt.Errorf("write the scenario as yaml: %w", err)
	}
	if file, ok := top.get("File").(string); ok && file != "" {
		out = append([]byte("# read from "+strconv.QuoteToGraphic(file)+"\n"), out...)
	}
	return out, e.unnamed, nil
}

// echo renames a config's keys.
type echo struct {
	builtin *BuiltinTarget // target.builtin, decoded
	unnamed []string       // the paths of the fields no key named
}

// value renames the keys of v, whose schema is schema (nil: a free value
// whose keys are data, such as a call's arguments).
func (e *echo) value(path string, v any, schema map[string]any) any {
	switch x := v.(type) {
	case jsonObject:
		return e.mapping(path, x, schema)
	case []any:
		items, _ := schema["items"].(map[string]any)
		out := make([]any, len(x))
		for i := range x {
			out[i] = e.value(fmt.Sprintf("%s[%d]", path, i), x[i], items)
		}
		return out
	}
	return v
}

// mapping renames the keys of one object.
func (e *echo) mapping(path string, obj jsonObject, schema map[string]any) any {
	props := properties(schema)
	if len(props) == 0 {
		if raw, ok := obj.get("Raw").(string); ok && schema["type"] == "string" {
			return raw // a check: the text it was written as
		}
		// A mapping whose keys are data (arguments, headers, labels,
		// by_tool): the keys as they are, the values by their schema.
		each, _ := schema["additionalProperties"].(map[string]any)
		out := yaml.MapSlice{}
		for _, m := range obj {
			out = append(out, yaml.MapItem{Key: m.key, Value: e.value(join(path, m.key), m.value, each)})
		}
		return out
	}
	out := yaml.MapSlice{}
	for _, m := range obj {
		if m.value == nil || echoSkipped[m.key] || zeroIsAbsent(path, m.key, m.value, obj) || echoAbsentWhenZero[m.key] && allUnset(m.value) {
			continue
		}
		if params, ok := m.value.(jsonObject); ok && m.key == "Params" {
			for _, p := range params {
				out = append(out, yaml.MapItem{Key: p.key, Value: e.value(join(path, p.key), p.value, nil)})
			}
			continue
		}
		key, sub, named := fileKey(m.key, props)
		if !named {
			e.unnamed = append(e.unnamed, join(path, m.key))
		}
		if key == "builtin" && e.builtin != nil {
			out = append(out, yaml.MapItem{Key: key, Value: builtinYAML(*e.builtin)})
			continue
		}
		out = append(out, yaml.MapItem{Key: key, Value: e.value(join(path, key), m.value, sub)})
	}
	return out
}

// echoAbsentWhenZero are the mappings whose zero is their absence: load.ids
// read from an empty mapping takes its defaults (sequential, one
// connection), and the run differs from one without it.
var echoAbsentWhenZero = map[string]bool{"IDs": true}

// echoZeroAbsent names the fields whose zero the decoder leaves where the
// file had no key, and which, written out, would not read back
// (`concurrency: 0` is an error where no concurrency is the open model), by
// the path of their mapping (indexes as []) and their field. Elsewhere a
// zero is written: it may differ from the key's absence (`seed: 0`,
// `probability: 0`, `grace: 0s`).
var echoZeroAbsent = map[string]map[string]bool{
	"load":                {"Concurrency": true},
	"load.ids":            {"Mode": true},
	"timeouts.policies[]": {"Timeout": true, "Idle": true, "Max": true, "ResetOnProgress": true},
	"faults[]":            {"AfterProgress": true},
}

// indexes matches a path's list indexes, for echoZeroAbsent.
var indexes = regexp.MustCompile(`\[\d+\]`)

// zeroIsAbsent reports whether the field key of the mapping obj at path is
// to be left out: a zero in echoZeroAbsent, or load.ids.connections at its
// default (1, or 2 when colliding), which a stdio target may not name.
func zeroIsAbsent(path, key string, v any, obj jsonObject) bool {
	if path == "load.ids" && key == "Connections" {
		def := int64(1)
		if obj.get("Mode") == IDsColliding {
			def = 2
		}
		return v == def
	}
	if !echoZeroAbsent[indexes.ReplaceAllString(path, "[]")][key] {
		return false
	}
	return unset(v)
}

// allUnset reports whether v is a mapping with every field unset.
func allUnset(v any) bool {
	obj, ok := v.(jsonObject)
	return ok && !slices.ContainsFunc(obj, func(m jsonMember) bool { return m.value != nil && !echoSkipped[m.key] && !unset(m.value) })
}

// unset reports whether a field's value is its type's zero: 0, "", 0s or
// false.
func unset(v any) bool {
	switch x := v.(type) {
	case int64:
		return x == 0
	case float64:
		return x == 0
	case string:
		return x == "" || x == "0s"
	case bool:
		return !x
	}
	return false
}

// fileKey is the key of props that field names, and its schema; a field
// no key names is written in snake case (named is false).
func fileKey(field string, props map[string]map[string]any) (key string, schema map[string]any, named bool) {
	for _, name := range slices.Sorted(maps.Keys(props)) { // sorted: the same key every time, should two match
		if strings.ReplaceAll(name, "_", "") == strings.ToLower(field) {
			return name, props[name], true
		}
	}
	return snakeCase(field), nil, false
}

// snakeCase writes a Go field name in snake case: MaxInFlight →
// max_in_flight, RPCCodes → rpc_codes.
func snakeCase(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i, c := range r {
		upper := c >= 'A' && c <= 'Z'
		if upper && i > 0 && (!isUpper(r[i-1]) || (i+1 < len(r) && !isUpper(r[i+1]))) {
			b.WriteByte('_')
		}
		if upper {
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}

// isUpper reports whether c is an ASCII capital, where a Go field name
// starts a new word.
func isUpper(c rune) bool { return c >= 'A' && c <= 'Z' }

// properties gathers the keys a schema allows, with their schemas: its
// own, and those of its alternatives and conditional branches.
func properties(schema map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	var walk func(s map[string]any)
	walk = func(s map[string]any) {
		if p, ok := s["properties"].(map[string]any); ok {
			for k, v := range p {
				if vs, ok := v.(map[string]any); ok {
					out[k] = vs
				}
			}
		}
		for _, alt := range []string{"oneOf", "anyOf", "allOf"} {
			list, _ := s[alt].([]any)
			for _, a := range list {
				if as, ok := a.(map[string]any); ok {
					walk(as)
				}
			}
		}
		if then, ok := s["then"].(map[string]any); ok {
			walk(then)
		}
	}
	walk(schema)
	return out
}

// builtinYAML is target.builtin as a file writes it: the transport, then
// each knob's key and value.
func builtinYAML(b BuiltinTarget) yaml.MapSlice {
	out := yaml.MapSlice{{Key: "transport", Value: b.Transport}}
	for _, k := range knobs.Table {
		if k.NotInFile {
			continue
		}
		text := k.Format(b.Config)
		var v any = text
		switch k.Kind {
		case knobs.Bool:
			v, _ = strconv.ParseBool(text)
		case knobs.Prob, knobs.Float:
			v, _ = strconv.ParseFloat(text, 64)
		case knobs.Int, knobs.Seed:
			v, _ = strconv.ParseInt(text, 10, 64)
		}
		out = append(out, yaml.MapItem{Key: k.Name, Value: v})
	}
	return out
}

// jsonObject is a JSON object with its members in order.
type jsonObject []jsonMember

// jsonMember is one member of a jsonObject.
type jsonMember struct {
	key   string
	value any
}

// get returns the value of key, or nil.
func (o jsonObject) get(key string) any {
	for _, m := range o {
		if m.key == key {
			return m.value
		}
	}
	return nil
}

// decodeOrdered reads one JSON value, its objects as jsonObject, its
// numbers as int64 or float64.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := jsonObject{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, jsonMember{k.(string), v})
			}
			_, err := dec.Token()
			return obj, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i, nil
		}
		return t.Float64()
	}
	return tok, nil
}
