package toolschema

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/termsafe"
)

// Check looks up every tool a scenario names — in calls and in tool probes
// — in the server's tool list, and validates the arguments it gives each
// against the tool's inputSchema, before any load is sent. Problems come
// as scenarios.Errors, one per call or probe, at its FILE:LINE:COLUMN: an
// unknown tool with the closest name ("did you mean"), arguments with
// each failing path. A call whose every request a malformed fault
// replaces (probability 1, for its tool) is exempt: its arguments are
// never sent as written. warnings are tools whose schema could not be
// read: their arguments are not checked. A tool among rejected (its
// x-mcp-header annotations break the spec's rules, so a Streamable HTTP
// client must not use it) is an error naming the reason.
func Check(sc *scenarios.Scenario, tools []client.Tool, rejected ...client.RejectedTool) (warnings []string, err error) {
	left := make(map[string]error, len(rejected))
	for _, r := range rejected {
		left[r.Name] = r.Reason
	}
	byName := make(map[string]client.Tool, len(tools))
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		byName[t.Name] = t
		names = append(names, t.Name)
	}
	schemas := map[string]*Schema{}
	schema := func(t client.Tool) *Schema {
		if s, ok := schemas[t.Name]; ok {
			return s
		}
		s, err := Compile(t.Name, t.InputSchema)
		if err != nil {
			warnings = append(warnings, err.Error()+"; its arguments are not checked")
		}
		schemas[t.Name] = s
		return s
	}
	var errs scenarios.Errors
	check := func(what string, pos scenarios.Pos, tool string, args map[string]any) {
		t, ok := byName[tool]
		if reason, no := left[tool]; !ok && no {
			errs = append(errs, &scenarios.Error{File: sc.File, Pos: pos, Msg: fmt.Sprintf(
				"%s: the server's tool %q is left out: its x-mcp-header annotations break the spec's rules (%v), and a Streamable HTTP client must not use it", what, tool, reason)})
			return
		}
		if !ok {
			errs = append(errs, &scenarios.Error{File: sc.File, Pos: pos, Msg: unknown(what, tool, names)})
			return
		}
		s := schema(t)
		if s == nil {
			return
		}
		var raw []byte // no arguments: sent without any, checked as {}
		var jerr error
		if args != nil {
			raw, jerr = json.Marshal(args)
		}
		if jerr != nil {
			errs = append(errs, &scenarios.Error{File: sc.File, Pos: pos, Msg: fmt.Sprintf("%s.arguments: %v", what, jerr)})
			return
		}
		if verr := s.Validate(raw); verr != nil {
			errs = append(errs, &scenarios.Error{File: sc.File, Pos: pos, Msg: what + ".arguments: " + verr.Error()})
		}
	}
	for i, c := range sc.Calls {
		if alwaysMalformed(sc, c.Tool) {
			continue
		}
		check(fmt.Sprintf("calls[%d]", i), c.Pos, c.Tool, c.Arguments)
	}
	for i, p := range sc.Orphans.Probes {
		if p.Tool != nil {
			check(fmt.Sprintf("orphans.probes[%d].tool", i), p.Pos, p.Tool.Name, p.Tool.Arguments)
		}
	}
	if len(errs) > 0 {
		return warnings, errs
	}
	return warnings, nil
}

// maxListed bounds how many tool names an unknown-tool message lists.
const maxListed = 12

func unknown(what, tool string, names []string) string {
	msg := fmt.Sprintf("%s: the server has no tool %q", what, tool)
	if s := scenarios.Suggest(tool, names); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	switch {
	case len(names) == 0:
		return msg + "; it lists no tools"
	case len(names) > maxListed:
		return msg + fmt.Sprintf("; it has %d tools: %s, ...", len(names), joinEscaped(names[:maxListed]))
	}
	return msg + "; it has: " + joinEscaped(names)
}

// joinEscaped joins tool names as the server sent them, each escaped
// (termsafe): a name is the server's text, and a line feed in it must not
// start a line of ours on the terminal.
func joinEscaped(names []string) string {
	esc := make([]string, len(names))
	for i, n := range names {
		esc[i] = termsafe.Escape(n)
	}
	return strings.Join(esc, ", ")
}

// alwaysMalformed reports whether a malformed fault replaces every request
// of tool: such calls send bad input on purpose.
func alwaysMalformed(sc *scenarios.Scenario, tool string) bool {
	for _, f := range sc.Faults {
		if f.Kind == faultkinds.Malformed && f.Probability >= 1 && f.AppliesTo(tool) {
			return true
		}
	}
	return false
}

// SaysProgress reports whether a tool says it sends progress: its title,
// its description or a parameter's description mentions progress, or its
// annotations or _meta have a key naming progress whose value is true.
// MCP has no field for it, so this is only what the tool's author wrote.
func SaysProgress(t client.Tool) bool {
	texts := []string{t.Title, t.Description}
	if s, err := Compile(t.Name, t.InputSchema); err == nil {
		for _, p := range s.Params() {
			texts = append(texts, p.Description)
		}
	}
	for _, text := range texts {
		if strings.Contains(strings.ToLower(text), "progress") {
			return true
		}
	}
	for _, raw := range []json.RawMessage{t.Annotations, t.Meta} {
		var m map[string]any
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		for k, v := range m {
			if strings.Contains(strings.ToLower(k), "progress") && v == true {
				return true
			}
		}
	}
	return false
}
