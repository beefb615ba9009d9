package toolschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is one tool's input schema, compiled.
type Schema struct {
	tool string
	root *jsonschema.Schema
	loc  string // the schema's URL in the compiler
	doc  any    // the schema as decoded JSON, for annotations the library does not keep
}

// Compile reads the inputSchema of tool. An absent or null schema is read
// as {"type": "object"}: any arguments.
func Compile(tool string, raw json.RawMessage) (*Schema, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte(`{"type":"object"}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("tool %q: inputSchema is not JSON: %w", tool, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noFetch{})
	loc := "mcp-tool:///" + url.PathEscape(tool)
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("tool %q: inputSchema: %w", tool, err)
	}
	root, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("tool %q: inputSchema is not a valid JSON Schema: %s", tool, oneLine(err.Error()))
	}
	return &Schema{tool: tool, root: root, loc: loc, doc: doc}, nil
}

// noFetch refuses every schema outside the tool's own: a server's schema
// must not make mcpchaos read files or fetch URLs.
type noFetch struct{}

func (noFetch) Load(u string) (any, error) {
	return nil, fmt.Errorf("$ref %q points outside the schema; mcpchaos does not fetch schemas", u)
}

// oneLine joins a multi-line library message into one line.
func oneLine(s string) string {
	fields := strings.Split(s, "\n")
	for i, f := range fields {
		fields[i] = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(f), "- "))
	}
	return strings.Join(fields, "; ")
}

// deref follows $ref from s to the schema that says something itself.
func deref(s *jsonschema.Schema) *jsonschema.Schema {
	for i := 0; s != nil && s.Ref != nil && i < 32; i++ {
		if s.Types != nil || s.Properties != nil || s.Enum != nil || s.Const != nil {
			return s
		}
		s = s.Ref
	}
	return s
}

// keyword returns the value of keyword in sub, a schema within s, as the
// server wrote it: for annotations the compiled form does not keep (the
// library keeps format only when it asserts it).
func (s *Schema) keyword(sub *jsonschema.Schema, keyword string) (any, bool) {
	base, frag, _ := strings.Cut(sub.Location, "#")
	if base != s.loc {
		return nil, false
	}
	var v any = s.doc
	for _, tok := range strings.Split(frag, "/")[1:] {
		if t, err := url.PathUnescape(tok); err == nil {
			tok = t
		}
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch node := v.(type) {
		case map[string]any:
			v = node[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(node) {
				return nil, false
			}
			v = node[i]
		default:
			return nil, false
		}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	val, ok := obj[keyword]
	return val, ok
}
