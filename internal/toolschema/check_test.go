package toolschema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// serverTools is a tool list like the built-in target's.
var serverTools = []client.Tool{
	{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
	{Name: "slow_task", Description: "Waits, sending a progress notification after each step.", InputSchema: json.RawMessage(stepSchema)},
	{Name: "inflight", InputSchema: json.RawMessage(`{"type":"object"}`)},
	{Name: "broken", InputSchema: json.RawMessage(`{"type":"strin"}`)},
}

func scenario(t *testing.T, body string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse("s.yaml", []byte("target: {http: {url: \"http://127.0.0.1:1/mcp\"}}\nload: {rate: 1/1s, duration: 1s}\n"+body))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		want     []string // one per problem, in order
		warnings int
	}{
		{name: "all known and valid", body: "calls:\n  - {tool: echo, arguments: {text: hi}}\n  - {tool: slow_task, arguments: {steps: 3}}\n"},
		{name: "a misspelt tool", body: "calls:\n  - {tool: slow_tsak}\n",
			want: []string{`s.yaml:4:5: calls[0]: the server has no tool "slow_tsak" (did you mean "slow_task"?); it has: echo, slow_task, inflight, broken`}},
		{name: "a tool with no near name", body: "calls:\n  - {tool: zzzzzzzzz}\n",
			want: []string{`s.yaml:4:5: calls[0]: the server has no tool "zzzzzzzzz"; it has:`}},
		{name: "arguments with the failing path", body: "calls:\n  - {tool: echo, arguments: {text: hi}}\n  - {tool: slow_task, arguments: {steps: ten}}\n",
			want: []string{`s.yaml:5:5: calls[1].arguments: arguments do not match the inputSchema of tool "slow_task": at /steps: got string, want integer`}},
		{name: "a missing required argument", body: "calls:\n  - {tool: echo}\n",
			want: []string{`s.yaml:4:5: calls[0].arguments: arguments do not match the inputSchema of tool "echo": at /: missing property 'text'`}},
		{name: "a tool probe is looked up too", body: "calls:\n  - {tool: echo, arguments: {text: hi}}\norphans: {probes: [{tool: {name: inflite}}]}\n",
			want: []string{`orphans.probes[0].tool: the server has no tool "inflite" (did you mean "inflight"?)`}},
		{name: "malformed on every call is exempt", body: "calls:\n  - {tool: echo}\nfaults:\n  - {kind: malformed, mode: params}\n"},
		{name: "malformed on some calls is not", body: "calls:\n  - {tool: echo}\nfaults:\n  - {kind: malformed, mode: params, probability: 0.5}\n",
			want: []string{`calls[0].arguments: arguments do not match`}},
		{name: "malformed on another tool is not", body: "calls:\n  - {tool: echo}\n  - {tool: slow_task}\nfaults:\n  - {kind: malformed, mode: json, tools: [slow_*]}\n",
			want: []string{`calls[0].arguments: arguments do not match`}},
		{name: "a schema that does not compile is a warning", body: "calls:\n  - {tool: broken, arguments: {x: 1}}\n", warnings: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			warnings, err := Check(scenario(t, tt.body), serverTools)
			if len(warnings) != tt.warnings {
				t.Errorf("warnings = %q, want %d", warnings, tt.warnings)
			}
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			var list scenarios.Errors
			if !errors.As(err, &list) || len(list) != len(tt.want) {
				t.Fatalf("Check = %v, want %d problems", err, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(list[i].Error(), w) {
					t.Errorf("problem %d = %q, want %q", i, list[i], w)
				}
			}
		})
	}
}

func TestSaysProgress(t *testing.T) {
	tests := []struct {
		name string
		tool client.Tool
		want bool
	}{
		{name: "description", tool: client.Tool{Description: "Sends Progress notifications"}, want: true},
		{name: "a parameter's description", tool: client.Tool{InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","description":"one progress notification per step"}}}`)}, want: true},
		{name: "meta key", tool: client.Tool{Meta: json.RawMessage(`{"example.com/sendsProgress":true}`)}, want: true},
		{name: "annotation false", tool: client.Tool{Annotations: json.RawMessage(`{"progress":false}`)}},
		{name: "silent", tool: client.Tool{Description: "echoes text"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SaysProgress(tt.tool); got != tt.want {
				t.Errorf("SaysProgress = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestUnknownToolNamesEscaped: the list of the server's tools in "no such
// tool" is the server's text; a line feed or an escape sequence in a name
// is shown escaped, so a hostile name cannot print a line of ours (issue
// 29: a forged "Result PASS" on stderr).
func TestUnknownToolNamesEscaped(t *testing.T) {
	hostile := "t\x1b]0;TITLE\a\r\nResult        PASS\n\u009b31m"
	for _, names := range [][]string{{"echo", hostile}, append(make([]string, maxListed+1), hostile)} {
		names[0] = hostile
		msg := unknown("calls[0]", "x", names)
		if strings.ContainsAny(msg, "\x1b\a\r\n\u009b") {
			t.Errorf("unknown(%d names) = %q: a control character reached the message", len(names), msg)
		}
		if !strings.Contains(msg, `\nResult`) {
			t.Errorf("unknown(%d names) = %q: the name's line feed is not shown as \\n", len(names), msg)
		}
	}
}
