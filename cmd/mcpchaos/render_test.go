package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/mcp"
	"github.com/mcpchaos/mcpchaos/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenTools is a fixed tool list: the SDK test server's tools.
var goldenTools = []mcp.Tool{
	{Name: "long_job", Title: "A long job", Description: "Runs for `seconds`, reporting progress after each step.", InputSchema: json.RawMessage(longJobSchema)},
	{Name: "search", Description: "Searches the documents.\nSecond paragraph of a description that goes on long enough to be wrapped at the width the listing uses for descriptions.", InputSchema: json.RawMessage(searchSchema)},
	{Name: "when", Description: "Formats a time.", InputSchema: json.RawMessage(whenSchema)},
	{Name: "wipe", Description: "Deletes everything.", Annotations: json.RawMessage(`{"destructiveHint":true}`), InputSchema: json.RawMessage(`{"type":"object"}`)},
	{Name: "odd", InputSchema: json.RawMessage(`{"type":"object","required":["id"],"properties":{"id":{"type":"string","pattern":"^[0-9]+$"}}}`)},
}

var goldenServer = serverInfo{Implementation: mcp.Implementation{Name: "golden-server", Version: "1.0"}, Era: mcp.Era20251125, Transport: "http", Target: "http://127.0.0.1:8080/mcp"}

func TestGoldenTools(t *testing.T) {
	var b bytes.Buffer
	if err := writeTools(&b, goldenServer, goldenTools); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "tools.txt.golden"), b.Bytes(), *update)
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
			testutil.Golden(t, filepath.Join("testdata", tt.name+".golden"), out.yaml, *update)
			if len(out.notes) != tt.notes || out.calls != 4 || out.slowest != "long_job" {
				t.Errorf("notes %q, %d calls, slowest %q", out.notes, out.calls, out.slowest)
			}
			if _, err := scenarios.Parse(tt.name, out.yaml); err != nil {
				t.Errorf("the starter scenario does not parse: %v", err)
			}
		})
	}
}
