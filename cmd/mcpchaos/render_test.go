package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// goldenTools is a fixed tool list: the SDK test server's tools.
var goldenTools = []client.Tool{
	{Name: "long_job", Title: "A long job", Description: "Runs for `seconds`, reporting progress after each step.", InputSchema: json.RawMessage(longJobSchema)},
	{Name: "search", Description: "Searches the documents.\nSecond paragraph of a description that goes on long enough to be wrapped at the width the listing uses for descriptions.", InputSchema: json.RawMessage(searchSchema)},
	{Name: "when", Description: "Formats a time.", InputSchema: json.RawMessage(whenSchema)},
	{Name: "wipe", Description: "Deletes everything.", Annotations: json.RawMessage(`{"destructiveHint":true}`), InputSchema: json.RawMessage(`{"type":"object"}`)},
	{Name: "odd", InputSchema: json.RawMessage(`{"type":"object","required":["id"],"properties":{"id":{"type":"string","pattern":"^[0-9]+$"}}}`)},
}

var goldenServer = serverInfo{Implementation: client.Implementation{Name: "golden-server", Version: "1.0"}, Era: client.Era20251125, Transport: "http", Target: "http://127.0.0.1:8080/mcp"}

func TestGoldenTools(t *testing.T) {
	var b bytes.Buffer
	if err := writeTools(&b, goldenServer, goldenTools); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "tools.txt.golden", b.Bytes())
}

// TestGoldenStarter pins the starter scenarios for an HTTP target (a
// credential header read from the environment) and a stdio one; each
// parses as a scenario.
func TestGoldenStarter(t *testing.T) {
	t.Setenv("MCP_AUTHORIZATION", "Bearer x")
	for _, tt := range []struct {
		name   string
		target target
		notes  int
	}{
		{name: "starter-http.yaml", target: target{url: "http://127.0.0.1:8080/mcp?k=${x}", header: map[string]string{"Authorization": "Bearer secret", "X-Tenant": "t1"}}, notes: 2},
		{name: "starter-stdio.yaml", target: target{command: []string{"node", "server.js", "--port=${PORT}"}}, notes: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := starter{target: tt.target, server: goldenServer, tools: goldenTools, protocol: "auto"}
			out, err := s.render()
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, tt.name+".golden", out.yaml)
			if len(out.notes) != tt.notes || out.calls != 4 || out.slowest != "long_job" {
				t.Errorf("notes %q, %d calls, slowest %q", out.notes, out.calls, out.slowest)
			}
			if _, err := scenarios.Parse(tt.name, out.yaml); err != nil {
				t.Errorf("the starter scenario does not parse: %v", err)
			}
			// The client section it suggests parses once uncommented.
			on := strings.Replace(string(out.yaml), "# client:\n#   elicitation:", "client:\n  elicitation:", 1)
			sc, err := scenarios.Parse(tt.name, []byte(on))
			if on == string(out.yaml) || err != nil || sc.Client.Elicitation == nil {
				t.Errorf("the suggested client section, uncommented: %v", err)
			}
		})
	}
}

// TestStarterHostileNames: names from a hostile server (a newline and YAML
// after it, in a tool name and in optional property names) stay text in
// the starter file: it parses, and its keys are only the starter's own.
func TestStarterHostileNames(t *testing.T) {
	tools := []client.Tool{{
		Name:        "evil\nfaults: [{kind: cancel}]",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x\nload: {rate: 100000/1s}":{"type":"string"},"y\r\n# z":{"type":"integer"}}}`),
	}}
	s := starter{target: target{url: "http://127.0.0.1:8080/mcp"}, server: goldenServer, tools: tools, protocol: "auto"}
	out, err := s.render()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse("starter.yaml", out.yaml)
	if err != nil {
		t.Fatalf("the starter scenario does not parse: %v\n%s", err, out.yaml)
	}
	if len(sc.Calls) != 1 || sc.Calls[0].Tool != tools[0].Name {
		t.Errorf("calls %+v, want the one tool with its name as sent\n%s", sc.Calls, out.yaml)
	}
	if bytes.Contains(out.yaml, []byte("\nload: {rate: 100000/1s}")) || bytes.Contains(out.yaml, []byte("\nfaults: [{kind: cancel}]")) {
		t.Errorf("a name from the server wrote YAML of its own:\n%s", out.yaml)
	}
}

// TestStarterHostileServerName: a server name and version with line
// breaks, or of megabytes, stay within their comment and name: line: the
// file parses, its keys are the starter's own, and its size is small.
func TestStarterHostileServerName(t *testing.T) {
	for _, tt := range []struct{ name, version string }{
		{"evil\nload: {rate: 100000/1s}", "1\r\nfaults: [{kind: cancel}]"},
		{strings.Repeat("n", 10<<20), strings.Repeat("v", 1<<20)},
	} {
		server := goldenServer
		server.Name, server.Version = tt.name, tt.version
		s := starter{target: target{url: "http://127.0.0.1:8080/mcp"}, server: server, tools: goldenTools[:1], protocol: "auto"}
		out, err := s.render()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := scenarios.Parse("starter.yaml", out.yaml); err != nil {
			t.Fatalf("the starter scenario does not parse: %v\n%.2000s", err, out.yaml)
		}
		if bytes.Contains(out.yaml, []byte("\nload: {rate: 100000/1s}")) || bytes.Contains(out.yaml, []byte("\nfaults: [{kind: cancel}]")) || len(out.yaml) > 16<<10 {
			t.Errorf("the server's name or version wrote YAML of its own, or %d bytes:\n%.2000s", len(out.yaml), out.yaml)
		}
	}
}

// TestStarterNoToolWritable: when every tool is left out, init writes no
// file and says why, tool by tool.
func TestStarterNoToolWritable(t *testing.T) {
	tools := []client.Tool{{Name: "", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: strings.Repeat("n", 2000), InputSchema: json.RawMessage(`{"type":"object"}`)}}
	s := starter{target: target{url: "http://127.0.0.1:8080/mcp"}, server: goldenServer, tools: tools, protocol: "auto"}
	_, err := s.render()
	if err == nil || !strings.Contains(err.Error(), `no tool of the server can be written in a scenario: tool "" left out of the scenario: an empty name`) ||
		!strings.Contains(err.Error(), "a name of 2000 bytes, more than 1024") {
		t.Fatalf("render: %v", err)
	}
}

// TestStarterManyBadNames: thousands of tools left out for their names
// cost a few lines, not one each: the file stays within validate's bounds.
func TestStarterManyBadNames(t *testing.T) {
	tools := []client.Tool{{Name: "good", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	for i := range 5000 {
		tools = append(tools, client.Tool{Name: fmt.Sprintf("%d%s", i, strings.Repeat("n", 1100)), InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
	s := starter{target: target{url: "http://127.0.0.1:8080/mcp"}, server: goldenServer, tools: tools, protocol: "auto"}
	out, err := s.render()
	if err != nil {
		t.Fatal(err)
	}
	if len(out.notes) != 21 || !strings.Contains(out.notes[20], "4980 more tools left out for their names or entries") {
		t.Errorf("%d notes, the last %q", len(out.notes), out.notes[len(out.notes)-1])
	}
	if err := scenarios.CheckWritten("starter.yaml", out.yaml); err != nil || len(out.yaml) > 64<<10 {
		t.Errorf("%d bytes: %v", len(out.yaml), err)
	}
}
