package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// printer renders the library's messages, in English.
var printer = message.NewPrinter(language.English)

// Problem is one reason arguments do not match a schema.
type Problem struct {
	// Path is the JSON pointer of the failing value in the arguments: ""
	// for the arguments object itself, "/steps", "/items/2".
	Path string
	Msg  string
}

func (p Problem) String() string {
	path := p.Path
	if path == "" {
		path = "/"
	}
	return "at " + path + ": " + p.Msg
}

// ArgsError says why arguments do not match a tool's input schema.
type ArgsError struct {
	Tool     string
	Problems []Problem // at least one, the deepest first found
}

func (e *ArgsError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return fmt.Sprintf("arguments do not match the inputSchema of tool %q: %s", e.Tool, strings.Join(parts, "; "))
}

// maxProblems bounds how many problems an ArgsError lists.
const maxProblems = 5

// Validate checks arguments, a JSON object (empty means {}), against the
// schema. A mismatch is an *ArgsError that names each failing path.
func (s *Schema) Validate(args json.RawMessage) error {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = []byte("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("arguments of tool %q are not JSON: %w", s.tool, err)
	}
	err = s.root.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("validate the arguments of tool %q: %w", s.tool, err)
	}
	return &ArgsError{Tool: s.tool, Problems: leaves(ve)}
}

// leaves returns the innermost causes of a validation error: the ones that
// say what is wrong where ("at /steps: got string, want integer"), not the
// groups around them.
func leaves(ve *jsonschema.ValidationError) []Problem {
	var out []Problem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(out) >= maxProblems {
			return
		}
		if len(e.Causes) == 0 {
			out = append(out, Problem{Path: pointer(e.InstanceLocation), Msg: e.ErrorKind.LocalizedString(printer)})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// pointer writes a JSON pointer (RFC 6901) from its tokens.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}
