package engine

import (
	"encoding/json"
	"sync"

	"github.com/mcpchaos/mcpchaos/internal/toolschema"
)

// The content of an accepted elicitation is checked against the form the
// server asked for (its requestedSchema), with the schema library the tool
// arguments are checked with: content that does not fit is the scenario's
// mistake, not the server's, and is counted (Record.ContentMismatch) so a
// server's refusal of it is not read as a server fault.

// maxForms bounds the compiled forms kept: a server that makes a new form
// for every call is checked without a cache past this many.
const maxForms = 64

// formCache keeps compiled forms by their schema's text.
type formCache struct {
	mu    sync.Mutex
	forms map[string]*toolschema.Schema // nil: the schema does not compile
}

// fits reports whether content fits the requestedSchema of an elicitation's
// params; a form without a schema, or whose schema does not compile (not
// ours to judge), fits anything.
func (f *formCache) fits(params []byte, content map[string]any) bool {
	s := f.form(params)
	if s == nil {
		return true
	}
	if content == nil {
		content = map[string]any{}
	}
	b, err := json.Marshal(content)
	return err != nil || s.Validate(b) == nil
}

// form is the compiled requestedSchema of an elicitation's params; nil
// when there is none or it does not compile.
func (f *formCache) form(params []byte) *toolschema.Schema {
	var p struct {
		Schema json.RawMessage `json:"requestedSchema"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Schema) == 0 {
		return nil
	}
	return f.compiled(string(p.Schema))
}

func (f *formCache) compiled(schema string) *toolschema.Schema {
	f.mu.Lock()
	s, ok := f.forms[schema]
	f.mu.Unlock()
	if ok {
		return s
	}
	s, err := toolschema.Compile("elicitation form", json.RawMessage(schema))
	if err != nil {
		s = nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.forms == nil {
		f.forms = map[string]*toolschema.Schema{}
	}
	if len(f.forms) < maxForms {
		f.forms[schema] = s
	}
	return s
}

// generate returns content with the fields it leaves out filled in from
// the form's requestedSchema (toolschema's Example: required fields and
// those with a const or default, each from its const, default, example,
// first enum value, or a value of its type within its bounds); content's
// own values win. A form without a schema, or whose schema does not
// compile, gets content as it is.
func (f *formCache) generate(params []byte, content map[string]any) map[string]any {
	s := f.form(params)
	if s == nil {
		return content
	}
	made, _, _ := s.Example() // a value that does not fit is counted by fits
	out := make(map[string]any, len(made)+len(content))
	for k, v := range made {
		out[k] = v
	}
	for k, v := range content {
		out[k] = v
	}
	return out
}

// sentContent is the content of an elicitation answer as sent (nil when
// it has none).
func sentContent(result []byte) map[string]any {
	var r struct {
		Content map[string]any `json:"content"`
	}
	_ = json.Unmarshal(result, &r)
	return r.Content
}
