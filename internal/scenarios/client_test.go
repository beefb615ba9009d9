package scenarios

import (
	"reflect"
	"testing"
	"time"
)

func TestClientSection(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want *Client
	}{
		{"absent", withHead(), nil},
		{"empty", withHead("client: {}"), &Client{MaxRounds: DefaultMaxRounds, Pos: Pos{4, 1}}},
		{"every kind", withHead(
			"client:",
			"  elicitation: {content: {confirm: true, n: 2}, think: 500ms}",
			"  sampling: {text: hello, think: 'uniform(1s, 2s)'}",
			"  roots: [{uri: 'file:///tmp/p', name: p}]",
			"  max_rounds: 3",
			"  by_tool:",
			"    deploy: {elicitation: {action: decline}}",
		), &Client{
			Elicitation: &Elicitation{Action: ElicitAccept, Content: map[string]any{"confirm": true, "n": int64(2)}, Think: Dist{Value: 500 * time.Millisecond}},
			Sampling:    &Sampling{Text: "hello", Model: DefaultSamplingModel, StopReason: DefaultStopReason, Think: Dist{Kind: DistUniform, Low: time.Second, High: 2 * time.Second}},
			Roots:       []Root{{URI: "file:///tmp/p", Name: "p"}}, HasRoots: true,
			MaxRounds: 3,
			ByTool:    map[string]ToolAnswers{"deploy": {Elicitation: &Elicitation{Action: ElicitDecline}}},
			Pos:       Pos{4, 1},
		}},
		{"empty roots still declared", withHead("client: {roots: []}"), &Client{Roots: []Root{}, HasRoots: true, MaxRounds: DefaultMaxRounds, Pos: Pos{4, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, "x.yaml", tt.yaml)
			if !reflect.DeepEqual(s.Client, tt.want) {
				t.Errorf("client = %+v\nwant %+v", s.Client, tt.want)
			}
		})
	}
}

func TestClientSectionErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"unknown key", withHead("client: {elicitaton: {}}"), []string{
			`x.yaml:4:10: client: unknown key "elicitaton" (known: elicitation, sampling, roots, max_rounds, by_tool)`}},
		{"bad action", withHead("client: {elicitation: {action: maybe}}"), []string{
			`x.yaml:4:32: client.elicitation.action: invalid value "maybe" (want one of: accept, decline, cancel)`}},
		{"content with decline", withHead("client: {elicitation: {action: decline, content: {a: 1}}}"), []string{
			`x.yaml:4:50: client.elicitation.content: is sent only with action accept, not "decline" (leave content out)`}},
		{"generate with cancel", withHead("client: {elicitation: {action: cancel, generate: true}}"), []string{
			`x.yaml:4:50: client.elicitation.generate: fills in a form, sent only with action accept, not "cancel" (leave generate out)`}},
		{"sampling without text", withHead("client: {sampling: {model: m}}"), []string{
			`x.yaml:4:10: client.sampling: missing required key "text"`}},
		{"root without uri", withHead("client: {roots: [{name: a}]}"), []string{
			`x.yaml:4:18: client.roots[0]: missing required key "uri"`}},
		{"rounds out of range", withHead("client: {max_rounds: 0}"), []string{
			`x.yaml:4:22: client.max_rounds: must be at least 1, got 0`}},
		{"by_tool kind without default", withHead("client: {by_tool: {deploy: {sampling: {text: x}}}}"), []string{
			`x.yaml:4:29: client.by_tool.deploy.sampling: set client.sampling too: it is the answer of every other tool`}},
		{"bad think", withHead("client: {elicitation: {think: soon}}"), []string{
			`x.yaml:4:31: client.elicitation.think: invalid distribution "soon": want a duration (1s), uniform(LOW, HIGH) or exp(MEAN)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseErrors(t, tt.yaml); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
