package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// The hostile-text suite: a server, a results file or a scenario whose
// text holds terminal controls (a window title, a clipboard write, a
// screen clear, carriage returns and line feeds that forge a line). Every
// command that prints that text prints it escaped: no control character
// but the command's own line feeds and tabs reaches stdout or stderr, and
// no forged line appears (termsafe).

// forgedText sets the terminal title, writes the clipboard (OSC 52),
// clears the screen and forges a passing result on a line of its own.
const forgedText = "boom\x1b]0;owned\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\r\nResult        PASS\n\u009b31m"

// forgedShown is how forgedText is printed.
const forgedShown = `boom\x1b]0;owned\a\x1b]52;c;cHduZWQ=\a\x1b[2J\r\nResult        PASS\n\u009b31m`

// hostileSDKServer serves, over loopback HTTP, an official-SDK server
// whose name, version, tool names, titles and descriptions and error
// messages are forgedText; its tool "fail" always fails with it.
func hostileSDKServer(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "evil" + forgedText, Version: "1\x1b[2J"}, nil)
	failing := func(context.Context, *sdk.CallToolRequest, map[string]any) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: forgedText}}}, nil, nil
	}
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Title: forgedText, Description: "Fails.\n" + forgedText,
		InputSchema: rawSchema(`{"type":"object","properties":{"x\u001b[2J":{"type":"string","description":"` + strings.ReplaceAll(jsonText(forgedText), `"`, `\"`) + `"}}}`)}, failing)
	sdk.AddTool(s, &sdk.Tool{Name: "x" + forgedText, Description: forgedText, InputSchema: rawSchema(`{"type":"object"}`)}, failing)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// jsonText is s as the inside of a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// TestHostileServerText: tools, init and run against a server whose every
// text is forgedText.
func TestHostileServerText(t *testing.T) {
	t.Parallel()
	url := hostileSDKServer(t)
	ctx := context.Background()
	t.Run("tools", func(t *testing.T) {
		t.Parallel()
		code, stdout, stderr := runCLI(t, ctx, "tools", url)
		if code != 0 {
			t.Fatalf("exit code %d\n%s", code, stderr)
		}
		testutil.CheckPrintable(t, "stdout", stdout)
		testutil.CheckPrintable(t, "stderr", stderr)
		for _, want := range []string{"Server     evil" + forgedShown + ` 1\x1b[2J`, "fail — " + forgedShown, "\nx" + forgedShown + "\n", `x\x1b[2J`} {
			if !strings.Contains(stdout, want) {
				t.Errorf("stdout does not show %q:\n%s", want, stdout)
			}
		}
	})
	t.Run("tools --json", func(t *testing.T) {
		t.Parallel()
		code, stdout, stderr := runCLI(t, ctx, "tools", "--json", url)
		if code != 0 {
			t.Fatalf("exit code %d\n%s", code, stderr)
		}
		testutil.CheckPrintable(t, "stdout", stdout)
		var list struct{ Tools []struct{ Title string } }
		if err := json.Unmarshal([]byte(stdout), &list); err != nil || len(list.Tools) == 0 || list.Tools[0].Title != forgedText {
			t.Errorf("the JSON does not hold the server's title as sent (%v):\n%s", err, stdout)
		}
	})
	t.Run("init", func(t *testing.T) {
		t.Parallel()
		code, stdout, stderr := runCLI(t, ctx, "init", "-o", "-", url)
		if code != 0 {
			t.Fatalf("exit code %d\n%s", code, stderr)
		}
		testutil.CheckPrintable(t, "stdout", stdout)
		testutil.CheckPrintable(t, "stderr", stderr)
		path := filepath.Join(t.TempDir(), "s.yaml")
		if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runCLI(t, ctx, "validate", path); code != 0 {
			t.Errorf("the scenario init wrote does not validate:\n%s\n%s", stderr, stdout)
		}
	})
	t.Run("run", func(t *testing.T) {
		t.Parallel()
		path := writeScenario(t, "s.yaml", "name: hostile\ntarget: {http: {url: '"+url+"'}}\ncalls: [{tool: fail}]\n"+
			"load: {rate: 20/1s, duration: 500ms}\norphans: {grace: 10ms}\nchecks: [calls.tool_error == 0]\n")
		code, stdout, stderr := runCLI(t, ctx, "run", path, "-q")
		if code != 1 {
			t.Fatalf("exit code %d, want 1 (the check fails)\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		testutil.CheckPrintable(t, "stdout", stdout)
		testutil.CheckPrintable(t, "stderr", stderr)
		testutil.CheckOneResult(t, stdout)
		if !strings.Contains(stdout, "Server        evil"+forgedShown) || !strings.Contains(stdout, forgedShown) {
			t.Errorf("the summary does not show the server's name and error escaped:\n%s", stdout)
		}
	})
}

// TestHostileResultsFile: report on a results file whose scenario, server,
// target, tool names and error messages are forgedText prints them escaped
// and cannot forge its Result line.
func TestHostileResultsFile(t *testing.T) {
	t.Parallel()
	in, err := os.Open("../../report/testdata/run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out strings.Builder
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		switch rec["type"] {
		case "header":
			rec["scenario"], rec["server"], rec["target"] = forgedText, forgedText, forgedText
		case "call":
			if rec["outcome"] == "ok" {
				rec["tool"], rec["outcome"], rec["error"] = forgedText, "tool_error", forgedText
			}
		}
		line, _ := json.Marshal(rec)
		out.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "hostile.jsonl")
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, context.Background(), "report", path)
	if code != 1 {
		t.Fatalf("exit code %d, want 1\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	testutil.CheckPrintable(t, "stdout", stdout)
	testutil.CheckPrintable(t, "stderr", stderr)
	testutil.CheckOneResult(t, stdout)
	if !strings.Contains(stdout, "Scenario      "+forgedShown) {
		t.Errorf("the scenario's name is not shown escaped:\n%s", stdout)
	}
	code, stdout, stderr = runCLI(t, context.Background(), "report", "--format", "json", path)
	if code != 1 {
		t.Fatalf("--format json: exit code %d, want 1\nstderr: %s", code, stderr)
	}
	testutil.CheckPrintable(t, "the JSON summary", stdout)
	var sum struct{ Scenario string }
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil || sum.Scenario != forgedText {
		t.Errorf("the JSON summary does not hold the scenario's name as sent (%v): %q", err, sum.Scenario)
	}
}

// TestHostileScenarioValues: validate's errors quote a scenario's values
// without their controls.
func TestHostileScenarioValues(t *testing.T) {
	t.Parallel()
	path := writeScenario(t, "s.yaml", "name: \"a\\e]0;owned\\a\"\ntarget: {builtin: {}}\ncalls: [{tool: \"echo\\e[2J\\r\\nResult PASS\"}]\n"+
		"load: {rate: 1/s, duration: 1s}\nchecks: [\"calls.ok\\e[2J\\n== 0\"]\n")
	code, stdout, stderr := runCLI(t, context.Background(), "validate", path)
	if code != 2 {
		t.Fatalf("exit code %d, want 2\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	testutil.CheckPrintable(t, "stdout", stdout)
	testutil.CheckPrintable(t, "stderr", stderr)
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if !strings.HasPrefix(l, path) {
			t.Errorf("a line of stderr does not start with the file's name (a value split it):\n%s", stderr)
			break
		}
	}
	// A valid scenario: its name is printed, escaped.
	valid := writeScenario(t, "ok.yaml", "name: \"a\\e]0;owned\\a\\r\\nResult PASS\"\ntarget: {builtin: {}}\ncalls: [{tool: echo}]\nload: {rate: 1/s, duration: 1s}\n")
	code, stdout, stderr = runCLI(t, context.Background(), "validate", valid)
	if code != 0 {
		t.Fatalf("exit code %d\nstderr: %s", code, stderr)
	}
	testutil.CheckPrintable(t, "stdout", stdout)
	if !strings.Contains(stdout, `(name: a\x1b]0;owned\a\r\nResult PASS,`) {
		t.Errorf("validate does not print the name escaped:\n%s", stdout)
	}
}

// TestHostileErrorText: a server that answers every request with a
// JSON-RPC error whose message is terminal controls: the error tools and
// init print quotes it escaped.
func TestHostileErrorText(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
			"error": map[string]any{"code": -32603, "message": forgedText}})
	}))
	t.Cleanup(ts.Close)
	for _, args := range [][]string{{"tools", ts.URL + "/mcp"}, {"init", "-o", filepath.Join(t.TempDir(), "s.yaml"), ts.URL + "/mcp"}} {
		t.Run(args[0], func(t *testing.T) {
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			if code != 2 {
				t.Fatalf("exit code %d, want 2\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			testutil.CheckPrintable(t, "stderr", stderr)
			if strings.Contains(stderr, "\nResult") {
				t.Errorf("the server's message split a line of stderr:\n%s", stderr)
			}
			if !strings.Contains(stderr, `\x1b]0;owned\a`) {
				t.Errorf("stderr does not show the server's text escaped:\n%s", stderr)
			}
		})
	}
}
