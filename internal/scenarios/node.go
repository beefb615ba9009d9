package scenarios

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/mcpchaos/mcpchaos/internal/redact"
)

// This file holds the generic half of the decoder: following anchors,
// aliases and tags, describing nodes in errors, and the positions of
// nodes. decode.go and its siblings walk the tree with it.

// maxDepth bounds nesting in free-form values (arguments) and merge chains.
const maxDepth = 64

// maxNodes bounds how many nodes free-form values may expand to, so that
// aliases of aliases ("billion laughs") cannot blow up.
const maxNodes = 100_000

// decoder holds the state of decoding one file.
type decoder struct {
	file    string
	errs    Errors
	anchors map[string]ast.Node         // during the pre-pass only
	aliases map[*ast.AliasNode]ast.Node // each alias → the value of its anchor
	budget  int                         // nodes free-form values may still visit
	lookup  func(string) (string, bool) // environment, for ${VAR}
	secrets *redact.Set                 // values outputs must not show (secrets.go)
	bounded bool                        // the budget ran out; reported once

	faultRefs []ref // one per decoded fault, for validate
	probeRefs []ref // one per decoded probe, for validate
	eraPos    Pos   // target.builtin.era's value, for validate
	// idsConnPos is load.ids.connections's value, when written (ids.go).
	idsConnPos Pos
	// protocolPos and transportPos are where protocol and
	// target.http.transport stand, for validate.
	protocolPos, transportPos Pos
}

func newDecoder(file string, lookup func(string) (string, bool)) *decoder {
	secrets := redact.New()
	return &decoder{
		file:    file,
		anchors: map[string]ast.Node{},
		aliases: map[*ast.AliasNode]ast.Node{},
		budget:  maxNodes,
		lookup:  newSecretLookup(secrets, lookup),
		secrets: secrets,
	}
}

// errorf records an error at p. A non-empty path is prefixed to the
// message ("load.rate: ...").
func (d *decoder) errorf(p Pos, path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	d.errs = append(d.errs, &Error{File: d.file, Pos: p, Msg: msg})
}

// isNil reports whether n is nil, including a typed nil pointer.
func isNil(n ast.Node) bool {
	if n == nil {
		return true
	}
	v := reflect.ValueOf(n)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// posOf returns where a node's value starts: the first key of a block
// mapping, the key of a key/value pair, the value behind an anchor or a
// tag, and the node's own token otherwise.
func posOf(n ast.Node) Pos {
	for depth := 0; depth < maxDepth && !isNil(n); depth++ {
		switch v := n.(type) {
		case *ast.AnchorNode:
			if !isNil(v.Value) {
				n = v.Value
				continue
			}
		case *ast.TagNode:
			if !isNil(v.Value) {
				n = v.Value
				continue
			}
		case *ast.MappingValueNode:
			if !isNil(v.Key) {
				n = v.Key
				continue
			}
		case *ast.MappingNode:
			if !v.IsFlowStyle && len(v.Values) > 0 && v.Values[0] != nil && !isNil(v.Values[0].Key) {
				n = v.Values[0].Key
				continue
			}
		}
		tk := n.GetToken()
		if tk == nil || tk.Position == nil {
			return Pos{}
		}
		return Pos{Line: tk.Position.Line, Column: tk.Position.Column}
	}
	return Pos{}
}

// link is the pre-pass: it walks the tree in document order, pairs every
// alias with the anchor defined last before it, and reports unknown
// aliases and unsupported tags. An anchor is registered after its own
// value, so an alias can never reach a node that contains it: following
// aliases always terminates.
func (d *decoder) link(n ast.Node, depth int) {
	if isNil(n) {
		return
	}
	if depth > 10*maxDepth {
		d.errorf(posOf(n), "", "nesting deeper than %d levels", 10*maxDepth)
		return
	}
	switch v := n.(type) {
	case *ast.DocumentNode:
		d.link(v.Body, depth+1)
	case *ast.MappingNode:
		for _, mv := range v.Values {
			if mv != nil {
				d.link(mv.Key, depth+1)
				d.link(mv.Value, depth+1)
			}
		}
	case *ast.MappingValueNode:
		d.link(v.Key, depth+1)
		d.link(v.Value, depth+1)
	case *ast.MappingKeyNode:
		d.link(v.Value, depth+1)
	case *ast.SequenceNode:
		for _, item := range v.Values {
			d.link(item, depth+1)
		}
	case *ast.TagNode:
		tag := ""
		if v.Start != nil {
			tag = v.Start.Value
		}
		if !strings.HasPrefix(tag, "!!") {
			p := posOf(n)
			if v.Start != nil && v.Start.Position != nil {
				p = Pos{Line: v.Start.Position.Line, Column: v.Start.Position.Column}
			}
			d.errorf(p, "", "unsupported tag %q", tag)
		}
		d.link(v.Value, depth+1)
	case *ast.AnchorNode:
		d.link(v.Value, depth+1)
		if name := tokenText(v.Name); name != "" && !isNil(v.Value) {
			d.anchors[name] = v.Value
		}
	case *ast.AliasNode:
		name := tokenText(v.Value)
		if target, ok := d.anchors[name]; ok {
			d.aliases[v] = target
		} else {
			d.errorf(posOf(n), "", "unknown alias %q (an anchor &%s must come before it)", "*"+name, name)
		}
	}
}

func tokenText(n ast.Node) string {
	if isNil(n) {
		return ""
	}
	if tk := n.GetToken(); tk != nil {
		return tk.Value
	}
	return ""
}

// deref follows anchors, aliases, tags and explicit keys ("? key") to the
// node that holds the value. It returns nil for a missing node; str is set
// when the value is tagged !!str. ok is false when the value cannot be
// used and link has already said why.
func (d *decoder) deref(n ast.Node) (v ast.Node, str bool, ok bool) {
	for i := 0; i < 10*maxDepth; i++ {
		if isNil(n) {
			return nil, str, true
		}
		switch t := n.(type) {
		case *ast.AnchorNode:
			n = t.Value
		case *ast.TagNode:
			if t.Start == nil || !strings.HasPrefix(t.Start.Value, "!!") {
				return nil, false, false
			}
			if t.Start.Value == "!!str" {
				str = true
			}
			n = t.Value
		case *ast.MappingKeyNode:
			n = t.Value
		case *ast.AliasNode:
			target, found := d.aliases[t]
			if !found {
				return nil, false, false
			}
			n = target
		default:
			return n, str, true
		}
	}
	return nil, false, false
}

// isNull reports whether a dereferenced node is YAML null (or missing).
func isNull(n ast.Node) bool {
	if isNil(n) {
		return true
	}
	_, null := n.(*ast.NullNode)
	return null
}

// scalarText returns the text of a scalar node: the value of a string, the
// source text of a number or boolean.
func scalarText(n ast.Node) (string, bool) {
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		if v.Value == nil {
			return "", true
		}
		return v.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return tokenText(n), true
	}
	return "", false
}

// stringValue returns the value of a string node, or of any scalar tagged
// !!str.
func stringValue(n ast.Node, str bool) (string, bool) {
	switch n.(type) {
	case *ast.StringNode, *ast.LiteralNode:
		return scalarText(n)
	}
	if str {
		return scalarText(n)
	}
	return "", false
}

// describe names a node's type and quotes its value, for "got ..." in
// error messages.
func describe(n ast.Node) string {
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return "null"
	case *ast.MappingNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a sequence"
	case *ast.StringNode, *ast.LiteralNode:
		s, _ := scalarText(v)
		return fmt.Sprintf("%q (a string)", clip(s))
	case *ast.IntegerNode:
		return fmt.Sprintf("%q (an integer)", tokenText(v))
	case *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return fmt.Sprintf("%q (a number)", tokenText(v))
	case *ast.BoolNode:
		return fmt.Sprintf("%q (a boolean)", tokenText(v))
	}
	if isNil(n) {
		return "null"
	}
	return n.Type().String()
}

// clip shortens long values quoted in messages.
func clip(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}

// join appends key to a dotted key path.
func join(path, key string) string {
	if key == "" {
		return path
	}
	if path == "" {
		return key
	}
	return path + "." + key
}
