package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// ParamHeaders holds, per tool, the parameters that the tool's inputSchema
// marks with x-mcp-header (2026-07-28): on Streamable HTTP a tools/call
// MUST carry an Mcp-Param-{Name} header with the value of each marked
// parameter that is present and not null. Share one across the clients of
// a run; Dial fills it from tools/list once, on the first 2026 HTTP
// client. It is safe for concurrent use.
type ParamHeaders struct {
	once    sync.Once
	mu      sync.RWMutex
	tools   map[string][]paramHeader
	invalid map[string]error
	err     error
}

// paramHeader is one marked parameter: the chain of properties keys that
// leads to it, and the name part of its header.
type paramHeader struct {
	path   []string
	header string // "Region" for Mcp-Param-Region
}

// Learn records the annotations of tools (a tools/list answer). A tool
// whose annotations break the rules (see parseParamHeaders) gets no
// headers and is listed by Invalid.
func (p *ParamHeaders) Learn(tools []Tool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tools == nil {
		p.tools, p.invalid = map[string][]paramHeader{}, map[string]error{}
	}
	for _, t := range tools {
		hs, err := parseParamHeaders(t.InputSchema)
		if err != nil {
			p.invalid[t.Name] = err
			delete(p.tools, t.Name)
			continue
		}
		delete(p.invalid, t.Name)
		if len(hs) > 0 {
			p.tools[t.Name] = hs
		}
	}
}

// Invalid returns the tools whose x-mcp-header annotations break the
// rules, with the reason; the spec says a client must not call them over
// HTTP, and mcpchaos sends them without Mcp-Param headers.
func (p *ParamHeaders) Invalid() map[string]error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return maps.Clone(p.invalid)
}

// learn fills p from c's tools/list, once for all the clients sharing p.
func (p *ParamHeaders) learn(ctx context.Context, c *Client) {
	p.once.Do(func() {
		l, err := c.ListToolPages(ctx)
		if err != nil {
			p.mu.Lock()
			p.err = err
			p.mu.Unlock()
			return
		}
		p.Learn(l.All)
	})
}

// Err returns why the tools could not be listed, if they could not.
func (p *ParamHeaders) Err() error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.err
}

// paramHeaders returns the Mcp-Param-* header lines of a tools/call of
// tool with args on 2026 Streamable HTTP, when the client has
// Config.ParamHeaders; nil otherwise.
func (c *Client) paramHeaders(tool string, args []byte) []byte {
	if p := c.cfg.ParamHeaders; p != nil && c.era.Modern() {
		return p.appendHeaders(nil, tool, args)
	}
	return nil
}

// appendHeaders writes the Mcp-Param-* header lines of a call of tool
// with the given arguments (a JSON object) to b.
func (p *ParamHeaders) appendHeaders(b []byte, tool string, args []byte) []byte {
	p.mu.RLock()
	hs := p.tools[tool]
	p.mu.RUnlock()
	if len(hs) == 0 || len(args) == 0 {
		return b
	}
	var obj map[string]any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	if d.Decode(&obj) != nil {
		return b // not an object (a malformed fault): nothing to mirror
	}
	for _, h := range hs {
		v, ok := lookupPath(obj, h.path)
		if !ok {
			continue
		}
		text, ok := headerText(v)
		if !ok {
			continue
		}
		b = append(b, vocab.HeaderParamPrefix...)
		b = append(b, h.header...)
		b = append(b, ": "...)
		b = append(b, headerValue(text)...)
		b = append(b, "\r\n"...)
	}
	return b
}

// lookupPath reads the value at a chain of object keys; absent or null is
// not ok.
func lookupPath(obj map[string]any, path []string) (any, bool) {
	var v any = obj
	for _, k := range path {
		m, isObj := v.(map[string]any)
		if !isObj {
			return nil, false
		}
		if v = m[k]; v == nil {
			return nil, false
		}
	}
	return v, true
}

// headerText converts a value the spec's way: a string as it is, an
// integer in decimal, a boolean as true or false. Other values (numbers
// with a fraction, objects, arrays) have no header form.
func headerText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return strconv.FormatInt(i, 10), true
		}
		if f, err := x.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) <= maxSafeInt {
			return strconv.FormatInt(int64(f), 10), true
		}
	}
	return "", false
}

// maxSafeInt is 2^53-1, the bound of integers an annotated parameter may
// hold.
const maxSafeInt = 1<<53 - 1

// parseParamHeaders finds the x-mcp-header annotations of an inputSchema.
// An annotation must be a non-empty HTTP token, unique (case-insensitively)
// in the schema, on a property of type integer, string or boolean that is
// reached from the root through properties keys only; one anywhere else
// (under items, oneOf, $ref, ...) makes the whole tool invalid.
func parseParamHeaders(schema json.RawMessage) ([]paramHeader, error) {
	if len(schema) == 0 || !bytes.Contains(schema, []byte("x-mcp-header")) {
		return nil, nil
	}
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("inputSchema is not JSON: %w", err)
	}
	var out []paramHeader
	seen := map[string]bool{}
	var walk func(v any, path []string, reachable bool, depth int) error
	walk = func(v any, path []string, reachable bool, depth int) error {
		if depth > 64 {
			return fmt.Errorf("inputSchema nested deeper than 64 levels")
		}
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				if err := walk(e, path, false, depth+1); err != nil {
					return err
				}
			}
			return nil
		case map[string]any:
			if h, ok := x["x-mcp-header"]; ok {
				where := "/" + strings.Join(path, "/")
				name, isStr := h.(string)
				switch {
				case !reachable || len(path) == 0:
					return fmt.Errorf("x-mcp-header at %s is not on a property reached through properties alone", where)
				case !isStr || !validToken(name):
					return fmt.Errorf("x-mcp-header %v of property %s is not an HTTP token", h, where)
				case seen[strings.ToLower(name)]:
					return fmt.Errorf("x-mcp-header %q is used twice (case-insensitively)", name)
				}
				switch x["type"] {
				case "string", "integer", "boolean":
				default:
					return fmt.Errorf("x-mcp-header %q is on property %s of type %v; only integer, string and boolean may be headers", name, where, x["type"])
				}
				seen[strings.ToLower(name)] = true
				out = append(out, paramHeader{path: slices.Clone(path), header: name})
			}
			for k, e := range x {
				if k == "properties" {
					props, isObj := e.(map[string]any)
					if !isObj {
						continue
					}
					for name, sub := range props {
						if err := walk(sub, append(slices.Clone(path), name), reachable, depth+1); err != nil {
							return err
						}
					}
					continue
				}
				if err := walk(e, path, false, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(root, nil, true, 0); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b paramHeader) int { return strings.Compare(a.header, b.header) })
	return out, nil
}

// validToken reports whether s is an HTTP token (RFC 9110 tchar).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
