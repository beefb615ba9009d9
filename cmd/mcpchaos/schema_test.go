package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

const schemaFile = "../../docs/scenario.schema.json"

// TestSchemaFileUpToDate: docs/scenario.schema.json is what `mcpchaos
// schema` prints. On a mismatch: go run ./cmd/mcpchaos schema > docs/scenario.schema.json
func TestSchemaFileUpToDate(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"schema"}, &out, &errOut); code != 0 {
		t.Fatalf("mcpchaos schema: exit %d: %s", code, errOut.String())
	}
	want, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("%s is out of date: run go run ./cmd/mcpchaos schema > docs/scenario.schema.json", schemaFile)
	}
}

func TestSchemaUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"schema", "extra"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), `unexpected argument "extra"`) {
		t.Errorf("schema extra: exit %d, stderr %q", code, errOut.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"schema", "--help"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "yaml-language-server: $schema="+scenarios.SchemaID) {
		t.Errorf("schema --help: exit %d, stdout %q", code, out.String())
	}
}

// resolvedSchema is the scenario schema, resolved by a JSON Schema library.
func resolvedSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	raw, err := scenarioSchema()
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("the schema does not decode as a JSON Schema: %v", err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolve the schema: %v", err)
	}
	return r
}

// instance converts a scenario file to the JSON value the schema judges.
func instance(t *testing.T, data []byte) any {
	t.Helper()
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatalf("YAML to JSON: %v", err)
	}
	var v any
	if err := json.Unmarshal(j, &v); err != nil {
		t.Fatalf("decode %s: %v", j, err)
	}
	return v
}

// decodes reports what the decoder (and package faults, which decodes
// each kind's keys) says about a scenario file.
func decodes(name string, data []byte) error {
	sc, err := scenarios.Parse(name, data)
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range sc.Faults {
		if _, err := faults.New(f, sc.Target.Transport()); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// validFiles are the scenario files that must validate: the examples and
// the decoder's own valid test files.
func validFiles(t *testing.T) []string {
	files, _ := filepath.Glob("../../examples/*.yaml")
	more, _ := filepath.Glob("../../examples/*/*.yaml")
	for _, f := range more {
		// Proxy files are not scenarios: package proxy tests them.
		if filepath.Base(filepath.Dir(f)) != "proxy" {
			files = append(files, f)
		}
	}
	files = append(files, "../../internal/scenarios/testdata/full.yaml")
	if len(files) < 5 {
		t.Fatalf("found only %v", files)
	}
	return files
}

// TestSchemaAcceptsValidFiles: every example and every valid test file
// passes the schema (and the decoder).
func TestSchemaAcceptsValidFiles(t *testing.T) {
	t.Setenv("TOKEN", "t") // examples may name environment variables
	r := resolvedSchema(t)
	for _, file := range validFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := decodes(file, data); err != nil {
				t.Fatalf("the decoder refuses it: %v", err)
			}
			if err := r.Validate(instance(t, data)); err != nil {
				t.Errorf("the schema refuses it: %v", err)
			}
		})
	}
}

const minimal = `
target: {http: {url: "https://127.0.0.1:8443/mcp"}}
load: {rate: 10/1s, duration: 1s}
calls: [{tool: echo}]
`

// TestSchemaRejectsInvalidFiles: files the decoder refuses for a key, a
// type or an enum are refused by the schema too.
func TestSchemaRejectsInvalidFiles(t *testing.T) {
	r := resolvedSchema(t)
	tests := []struct{ name, doc string }{
		{"unknown top key", minimal + "bogus: 1\n"},
		{"misspelt load key", "target: {builtin: {}}\nload: {rate: 10/1s, duraton: 1s}\ncalls: [{tool: echo}]\n"},
		{"missing calls", "target: {builtin: {}}\nload: {rate: 10/1s, duration: 1s}\n"},
		{"seed is a string", minimal + "seed: forty\n"},
		{"weight is a string", "target: {builtin: {}}\nload: {rate: 10/1s, duration: 1s}\ncalls: [{tool: echo, weight: heavy}]\n"},
		{"bad protocol", minimal + "protocol: 2024-01-01\n"},
		{"bad knob enum", "target: {builtin: {era: 2027}}\nload: {rate: 10/1s, duration: 1s}\ncalls: [{tool: echo}]\n"},
		{"knob out of range", "target: {builtin: {leak_on_cancel: 2}}\nload: {rate: 10/1s, duration: 1s}\ncalls: [{tool: echo}]\n"},
		{"two targets", "target: {builtin: {}, stdio: {command: [x]}}\nload: {rate: 10/1s, duration: 1s}\ncalls: [{tool: echo}]\n"},
		{"bad rate", "target: {builtin: {}}\nload: {rate: fast, duration: 1s}\ncalls: [{tool: echo}]\n"},
		{"bad duration", "target: {builtin: {}}\nload: {rate: 10/1s, duration: soon}\ncalls: [{tool: echo}]\n"},
		{"unknown fault kind", minimal + "faults: [{kind: explode}]\n"},
		{"bad disconnect mode", minimal + "faults: [{kind: disconnect, after: 1s, mode: slam}]\n"},
		{"key of another kind", minimal + "faults: [{kind: cancel, after: 1s, mode: rst}]\n"},
		{"missing malformed mode", minimal + "faults: [{kind: malformed}]\n"},
		{"probability above 1", minimal + "faults: [{kind: cancel, after: 1s, probability: 1.5}]\n"},
		{"unknown tls key", "target: {http: {url: \"https://x/mcp\", tls: {ca: x.pem}}}\nload: {rate: 10/1s, duration: 1s}\ncalls: [{tool: echo}]\n"},
		{"tls verify is a string", "target: {http: {url: \"https://x/mcp\", tls: {insecure_skip_verify: yes please}}}\nload: {rate: 10/1s, duration: 1s}\ncalls: [{tool: echo}]\n"},
		{"bad http transport", "target: {http: {url: \"https://x/mcp\", transport: websocket}}\nload: {rate: 10/1s, duration: 1s}\ncalls: [{tool: echo}]\n"},
		{"probe with two kinds", minimal + "orphans: {probes: [{process: {}, metric: {url: \"http://x/m\", name: g}}]}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := decodes("bad.yaml", []byte(tt.doc)); err == nil {
				t.Errorf("the decoder accepts it:\n%s", tt.doc)
			}
			if err := r.Validate(instance(t, []byte(tt.doc))); err == nil {
				t.Errorf("the schema accepts it:\n%s", tt.doc)
			}
		})
	}
}

// TestSchemaAgreesWithDecoder walks every key of the full test file (every
// key of a scenario, every fault kind) and, for each, writes a value of
// another JSON type and a key that does not exist beside it: the decoder
// and the schema must both refuse each such file. Where the schema types
// a key, that is the decoder's type too.
func TestSchemaAgreesWithDecoder(t *testing.T) {
	r := resolvedSchema(t)
	data, err := os.ReadFile("../../internal/scenarios/testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base := instance(t, data)
	var paths [][]any
	walk(base, nil, func(p []any) { paths = append(paths, slices.Clone(p)) })
	checked := 0
	for _, p := range paths {
		v := get(base, p)
		if underFreeForm(p) {
			continue
		}
		for _, wrong := range wrongValues(v) {
			doc := set(base, p, wrong)
			name := fmt.Sprintf("%s=%v", pathString(p), wrong)
			checkBoth(t, r, name, doc)
			checked++
		}
		if m, ok := v.(map[string]any); ok && !underFreeForm(append(slices.Clone(p), "")) {
			doc := set(base, p, with(m, "no_such_key", 1))
			checkBoth(t, r, pathString(p)+".no_such_key", doc)
			checked++
		}
	}
	if checked < 150 {
		t.Errorf("only %d mutations checked; is full.yaml complete?", checked)
	}
}

func checkBoth(t *testing.T, r *jsonschema.Resolved, name string, doc any) {
	t.Helper()
	raw, err := json.Marshal(doc) // JSON is YAML
	if err != nil {
		t.Fatal(err)
	}
	decErr := decodes("mutated.yaml", raw)
	schemaErr := r.Validate(doc)
	if decErr == nil {
		t.Errorf("%s: the decoder accepts it", name)
	}
	if schemaErr == nil {
		t.Errorf("%s: the schema accepts it (the decoder says: %v)", name, decErr)
	}
}

// underFreeForm reports paths inside values the schema leaves free: tool
// arguments, headers, env, labels.
func underFreeForm(p []any) bool {
	for i, s := range p {
		switch s {
		case "arguments", "headers", "env", "labels":
			return i < len(p)-1
		}
	}
	return false
}

// wrongValues are values of other JSON types than v's, none of which the
// key can take.
func wrongValues(v any) []any {
	switch v.(type) {
	case bool:
		return []any{"maybe", 3}
	case float64:
		return []any{"many", true, []any{1}}
	case string:
		return []any{[]any{"x"}, map[string]any{"x": 1}}
	case []any:
		return []any{"x", 7}
	case map[string]any:
		return []any{"x", []any{1}}
	}
	return nil
}

func walk(v any, p []any, f func([]any)) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			q := append(p, k)
			f(q)
			walk(x[k], q, f)
		}
	case []any:
		for i, e := range x {
			q := append(p, i)
			f(q)
			walk(e, q, f)
		}
	}
}

func get(v any, p []any) any {
	for _, s := range p {
		switch k := s.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

// set returns a deep copy of v with the value at p replaced.
func set(v any, p []any, val any) any {
	if len(p) == 0 {
		return val
	}
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = e
		}
		k := p[0].(string)
		c[k] = set(x[k], p[1:], val)
		return c
	case []any:
		c := slices.Clone(x)
		i := p[0].(int)
		c[i] = set(x[i], p[1:], val)
		return c
	}
	panic("bad path")
}

func with(m map[string]any, k string, v any) map[string]any {
	c := make(map[string]any, len(m)+1)
	for key, e := range m {
		c[key] = e
	}
	c[k] = v
	return c
}

func pathString(p []any) string {
	var b strings.Builder
	for _, s := range p {
		switch k := s.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		}
	}
	return b.String()
}
