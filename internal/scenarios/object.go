package scenarios

import (
	"fmt"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// entry is one key of a mapping, with the value as written.
type entry struct {
	key    string
	keyPos Pos
	raw    ast.Node
}

// object is a mapping being decoded against a schema. Its getters report
// type and value errors at the value's position, prefixed with the key
// path, and return ok=false for absent, null or invalid values, so a
// caller only has to apply its default.
type object struct {
	d    *decoder
	path string // dotted key path of the mapping; "" at the top
	pos  Pos    // blamed for missing keys: the key that introduced the mapping
	ents map[string]entry
	list []entry // in file order
	bad  bool    // not a mapping; already reported
}

// object decodes raw as a mapping. Null is an empty mapping. at is the
// position blamed for missing keys.
func (d *decoder) object(path string, at Pos, raw ast.Node) *object {
	o := &object{d: d, path: path, pos: at, ents: map[string]entry{}}
	n, _, ok := d.deref(raw)
	switch m := n.(type) {
	case *ast.MappingNode:
		o.list = d.entries(path, m, 0)
		for _, e := range o.list {
			o.ents[e.key] = e
		}
	default:
		if !ok {
			o.bad = true
		} else if !isNull(n) {
			d.errorf(posOf(raw), path, "want a mapping, got %s", describe(n))
			o.bad = true
		}
	}
	return o
}

// entries lists a mapping's keys, expanding merge keys ("<<: *base"):
// explicit keys win over merged ones, and earlier merged mappings over
// later ones.
func (d *decoder) entries(path string, m *ast.MappingNode, depth int) []entry {
	var out []entry
	seen := map[string]bool{}
	var merges []ast.Node
	for _, mv := range m.Values {
		if mv == nil || isNil(mv.Key) {
			continue
		}
		if _, merge := mv.Key.(*ast.MergeKeyNode); merge {
			merges = append(merges, mv.Value)
			continue
		}
		kn, str, ok := d.deref(mv.Key)
		if !ok {
			continue
		}
		key, isStr := stringValue(kn, str)
		if !isStr {
			d.errorf(posOf(mv.Key), path, "keys must be strings, got %s", describe(kn))
			continue
		}
		if seen[key] {
			d.errorf(posOf(mv.Key), path, "duplicate key %q", key)
			continue
		}
		seen[key] = true
		out = append(out, entry{key: key, keyPos: posOf(mv.Key), raw: mv.Value})
	}
	for _, raw := range merges {
		n, _, ok := d.deref(raw)
		if !ok {
			continue
		}
		var sources []ast.Node
		switch v := n.(type) {
		case *ast.MappingNode:
			sources = []ast.Node{v}
		case *ast.SequenceNode:
			sources = v.Values
		default:
			d.errorf(posOf(raw), path, "merge key << wants a mapping or a list of mappings, got %s", describe(n))
			continue
		}
		for _, src := range sources {
			sn, _, ok := d.deref(src)
			if !ok {
				continue
			}
			sm, isMap := sn.(*ast.MappingNode)
			if !isMap {
				d.errorf(posOf(src), path, "merge key << wants a mapping or a list of mappings, got %s", describe(sn))
				continue
			}
			if depth >= maxDepth {
				d.errorf(posOf(src), path, "merge keys nested deeper than %d levels", maxDepth)
				continue
			}
			if d.budget -= len(sm.Values); d.budget < 0 {
				if !d.bounded {
					d.bounded = true
					d.errorf(posOf(src), path, "merge keys expand to more than %d values", maxNodes)
				}
				continue
			}
			for _, e := range d.entries(path, sm, depth+1) {
				if !seen[e.key] {
					seen[e.key] = true
					out = append(out, e)
				}
			}
		}
	}
	return out
}

// known reports every key that is not in keys.
func (o *object) known(keys ...string) {
	for _, e := range o.list {
		if !contains(keys, e.key) {
			o.d.errorf(e.keyPos, o.path, "unknown key %q (known: %s)", e.key, strings.Join(keys, ", "))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// present reports whether key is written, even with a null value.
func (o *object) present(key string) bool {
	_, ok := o.ents[key]
	return ok
}

// has reports whether key is written with a non-null value.
func (o *object) has(key string) bool {
	e, ok := o.ents[key]
	if !ok {
		return false
	}
	n, _, usable := o.d.deref(e.raw)
	return !usable || !isNull(n)
}

// at returns the position of key's value, or of the mapping when the key
// is absent.
func (o *object) at(key string) Pos {
	if e, ok := o.ents[key]; ok {
		if p := posOf(e.raw); p.IsValid() {
			return p
		}
		return e.keyPos
	}
	return o.pos
}

// keyAt returns the position of key itself, or of the mapping.
func (o *object) keyAt(key string) Pos {
	if e, ok := o.ents[key]; ok {
		return e.keyPos
	}
	return o.pos
}

// errf reports an error about key's value, at the value.
func (o *object) errf(key, format string, args ...any) {
	o.d.errorf(o.at(key), join(o.path, key), format, args...)
}

// require reports each key that is absent or null.
func (o *object) require(keys ...string) {
	if o.bad {
		return
	}
	for _, k := range keys {
		switch {
		case o.has(k):
		case o.present(k):
			o.d.errorf(o.keyAt(k), join(o.path, k), "missing value")
		default:
			o.d.errorf(o.pos, o.path, "missing required key %q", k)
		}
	}
}

// name returns a required string that must not be empty (a tool's, a
// policy's), reporting it when absent or empty; empty says it was written
// but empty, so that no other check on the value need report it again.
func (o *object) name(key string) (s string, empty bool) {
	o.require(key)
	s, _ = o.str(key)
	if o.has(key) && s == "" {
		o.errf(key, "must not be empty")
		return s, true
	}
	return s, false
}

// value returns key's dereferenced value when it is usable and not null.
func (o *object) value(key string) (n ast.Node, str bool, ok bool) {
	e, found := o.ents[key]
	if !found {
		return nil, false, false
	}
	n, str, ok = o.d.deref(e.raw)
	if !ok || isNull(n) {
		return nil, false, false
	}
	return n, str, true
}

// sub returns key's value as a nested object (empty when absent).
func (o *object) sub(key string) *object {
	e, ok := o.ents[key]
	if !ok {
		return &object{d: o.d, path: join(o.path, key), pos: o.pos, ents: map[string]entry{}}
	}
	return o.d.object(join(o.path, key), e.keyPos, e.raw)
}

// item is one element of a sequence.
type item struct {
	raw  ast.Node
	pos  Pos
	path string // "calls[2]"
}

// items returns key's value as a sequence (nil when absent or null).
func (o *object) items(key string) []item {
	n, _, ok := o.value(key)
	if !ok {
		return nil
	}
	seq, isSeq := n.(*ast.SequenceNode)
	if !isSeq {
		o.errf(key, "want a sequence, got %s", describe(n))
		return nil
	}
	out := make([]item, 0, len(seq.Values))
	for i, v := range seq.Values {
		p := posOf(v)
		if !p.IsValid() {
			p = posOf(seq)
		}
		out = append(out, item{raw: v, pos: p, path: fmt.Sprintf("%s[%d]", join(o.path, key), i)})
	}
	return out
}

// isSequence reports whether key holds a sequence, so callers can tell an
// explicit empty list from an absent key.
func (o *object) isSequence(key string) bool {
	n, _, ok := o.value(key)
	if !ok {
		return false
	}
	_, isSeq := n.(*ast.SequenceNode)
	return isSeq
}
