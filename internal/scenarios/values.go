package scenarios

import (
	"math"
	"strconv"

	"github.com/goccy/go-yaml/ast"
)

// This file decodes composite values that are data rather than schema:
// lists of strings, string maps and free-form JSON-compatible arguments.

// positioned is a string value with its position, kept so that later
// steps (environment expansion, pattern checks) can blame the value.
type positioned struct {
	s    string
	pos  Pos
	path string
}

// stringItem decodes one sequence element as a string.
func (d *decoder) stringItem(it item) (string, bool) {
	n, str, ok := d.deref(it.raw)
	if !ok {
		return "", false
	}
	s, isStr := stringValue(n, str)
	if !isStr {
		d.errorf(it.pos, it.path, "want a string, got %s", describe(n))
		return "", false
	}
	return s, true
}

// stringList returns key's value as a list of strings.
func (o *object) stringList(key string) ([]positioned, bool) {
	if !o.has(key) {
		return nil, false
	}
	items := o.items(key)
	if items == nil && !o.isSequence(key) {
		return nil, false
	}
	out := make([]positioned, 0, len(items))
	good := true
	for _, it := range items {
		s, ok := o.d.stringItem(it)
		if !ok {
			good = false
			continue
		}
		out = append(out, positioned{s: s, pos: it.pos, path: it.path})
	}
	return out, good
}

// stringMap returns key's value as a map of strings. Values may be any
// scalar (PORT: 8080 is "8080"); keys must be strings.
func (o *object) stringMap(key string) (map[string]positioned, bool) {
	if !o.has(key) {
		return nil, false
	}
	sub := o.sub(key)
	if sub.bad {
		return nil, false
	}
	out := make(map[string]positioned, len(sub.list))
	good := true
	for _, e := range sub.list {
		n, _, ok := o.d.deref(e.raw)
		if !ok {
			good = false
			continue
		}
		path := join(sub.path, e.key)
		p := posOf(e.raw)
		if !p.IsValid() {
			p = e.keyPos
		}
		if isNull(n) {
			out[e.key] = positioned{s: "", pos: p, path: path}
			continue
		}
		s, isScalar := scalarText(n)
		if !isScalar {
			o.d.errorf(p, path, "want a string, got %s", describe(n))
			good = false
			continue
		}
		out[e.key] = positioned{s: s, pos: p, path: path}
	}
	return out, good
}

// anyMap returns key's value as a JSON-compatible map.
func (o *object) anyMap(key string) (map[string]any, bool) {
	if !o.has(key) {
		return nil, false
	}
	e := o.ents[key]
	v, ok := o.d.anyValue(join(o.path, key), e.raw, 0)
	if !ok {
		return nil, false
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		n, _, _ := o.d.deref(e.raw)
		o.errf(key, "want a mapping, got %s", describe(n))
		return nil, false
	}
	return m, true
}

// anyValue converts a node to a JSON-compatible value: map[string]any,
// []any, string, int64 (uint64 above MaxInt64), float64, bool or nil.
// Non-string keys, infinities and NaN are errors.
func (d *decoder) anyValue(path string, raw ast.Node, depth int) (any, bool) {
	if d.budget--; d.budget < 0 {
		if !d.bounded {
			d.bounded = true
			d.errorf(posOf(raw), path, "value expands to more than %d nodes", maxNodes)
		}
		return nil, false
	}
	if depth > maxDepth {
		d.errorf(posOf(raw), path, "nested deeper than %d levels", maxDepth)
		return nil, false
	}
	n, str, ok := d.deref(raw)
	if !ok {
		return nil, false
	}
	if isNull(n) {
		if str {
			return "", true
		}
		return nil, true
	}
	if str {
		if s, isScalar := scalarText(n); isScalar {
			return s, true
		}
	}
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		s, _ := scalarText(v)
		return s, true
	case *ast.BoolNode:
		return v.Value, true
	case *ast.IntegerNode:
		switch i := v.Value.(type) {
		case int64:
			return i, true
		case uint64:
			if i <= math.MaxInt64 {
				return int64(i), true
			}
			return i, true
		}
		d.errorf(posOf(raw), path, "integer %q is out of range", tokenText(v))
		return nil, false
	case *ast.FloatNode:
		if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
			d.errorf(posOf(raw), path, "%s is not a JSON number", describe(v))
			return nil, false
		}
		return v.Value, true
	case *ast.InfinityNode, *ast.NanNode:
		d.errorf(posOf(raw), path, "%s is not a JSON number", describe(v))
		return nil, false
	case *ast.SequenceNode:
		out := make([]any, 0, len(v.Values))
		good := true
		for i, item := range v.Values {
			x, ok := d.anyValue(indexPath(path, i), item, depth+1)
			good = good && ok
			out = append(out, x)
		}
		return out, good
	case *ast.MappingNode:
		out := map[string]any{}
		good := true
		for _, e := range d.entries(path, v, 0) {
			x, ok := d.anyValue(join(path, e.key), e.raw, depth+1)
			good = good && ok
			out[e.key] = x
		}
		return out, good
	}
	d.errorf(posOf(raw), path, "unsupported value %s", describe(n))
	return nil, false
}

func indexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}
