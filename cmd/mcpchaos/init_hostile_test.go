//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileToolServer serves, with the official SDK over loopback HTTP, the
// tool lists an adversarial server could send `mcpchaos init` (issue 29,
// items 4 and 7): a good tool first, then the named hostile ones, then
// filler tools.
func hostileToolServer(t *testing.T, hostile []*sdk.Tool, filler int) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "hostile", Version: "1"}, &sdk.ServerOptions{PageSize: 1000})
	handler := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
	}
	s.AddTool(&sdk.Tool{Name: "good", InputSchema: rawSchema(`{"type":"object"}`)}, handler)
	for _, tool := range hostile {
		s.AddTool(tool, handler)
	}
	for i := range filler {
		s.AddTool(&sdk.Tool{Name: fmt.Sprintf("filler_%04d", i), InputSchema: fillerSchema}, handler)
	}
	return serveSDKStateless(t, s)
}

// fillerSchema gives each filler tool an arguments line of a few tokens.
var fillerSchema = rawSchema(`{"type":"object","required":["q","n"],"properties":{"q":{"type":"string"},"n":{"type":"integer"}}}`)

// recursiveToolSchema: a node whose ten required properties are each a
// node (250 bytes; expanded without a bound, ten to the depth of values).
const recursiveToolSchema = `{"type":"object","required":["a","b","c","d","e","f","g","h","i","j"],"properties":{
"a":{"$ref":"#"},"b":{"$ref":"#"},"c":{"$ref":"#"},"d":{"$ref":"#"},"e":{"$ref":"#"},
"f":{"$ref":"#"},"g":{"$ref":"#"},"h":{"$ref":"#"},"i":{"$ref":"#"},"j":{"$ref":"#"}}}`

// TestInitHostileServer: init against each hostile server writes a file
// that its own validate accepts, leaves the tools it cannot write out with
// a note on stderr and a comment in the file, and stays within the
// hostile-input suite's time and memory bounds.
func TestInitHostileServer(t *testing.T) {
	exe := bin.Need(t)
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200) // within the 256 levels mcpchaos reads
	wide := "[" + strings.Repeat("[1],", 300_000) + "[1]]"      // 1.2 MB of nested arrays
	for _, tt := range []struct {
		name    string
		tools   []*sdk.Tool
		filler  int
		comment string // in the file
		note    string // on stderr
	}{
		{name: "an empty tool name", tools: []*sdk.Tool{{Name: "", InputSchema: rawSchema(`{"type":"object"}`)}},
			comment: `# left out: tool "", an empty name`, note: `note: tool "" left out of the scenario: an empty name`},
		{name: "a 10 MB tool name", tools: []*sdk.Tool{{Name: strings.Repeat("n", 10<<20), InputSchema: rawSchema(`{"type":"object"}`)}},
			comment: `# left out: tool "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"..., a name of 10485760 bytes, more than 1024`,
			note:    `note: tool "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"... left out of the scenario: a name of 10485760 bytes`},
		{name: "a recursive schema", tools: []*sdk.Tool{{Name: "tree", InputSchema: rawSchema(recursiveToolSchema)}},
			comment: "# FIX: the arguments its inputSchema asks for are larger than mcpchaos makes", note: `note: tool "tree": the arguments its inputSchema asks for are larger`},
		{name: "a default nested 200 deep", tools: []*sdk.Tool{{Name: "deep", InputSchema: rawSchema(`{"type":"object","required":["a"],"properties":{"a":{"default":` + deep + `}}}`)}},
			comment: "# FIX: the arguments its inputSchema asks for are larger", note: `note: tool "deep": the arguments`},
		{name: "a 1 MB default of nested arrays", tools: []*sdk.Tool{{Name: "wide", InputSchema: rawSchema(`{"type":"object","required":["a"],"properties":{"a":{"default":` + wide + `}}}`)}},
			comment: "# FIX: the arguments its inputSchema asks for are larger", note: `note: tool "wide": the arguments`},
		{name: "9,999 tools", filler: 9_998, comment: " tools left out: the file would pass the bounds validate holds a scenario to (1048576 bytes, 100000 YAML tokens)",
			note: "tools left out: the file would pass the bounds"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url := hostileToolServer(t, tt.tools, tt.filler)
			path := filepath.Join(t.TempDir(), "starter.yaml")
			// init gets the suite's time bound, not the user's 30 s default: the
			// server here runs under -race beside the test, slow on a busy machine.
			code, _, stderr := runMeasured(t, exe, "init", "--timeout", hostileTime.String(), "-o", path, url)
			if code != 0 {
				t.Fatalf("init exited %d:\n%.2000s", code, stderr)
			}
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(body, []byte(tt.comment)) {
				t.Errorf("the file has no comment %q:\n%.3000s\n...\n%s", tt.comment, body, body[max(0, len(body)-3000):])
			}
			if !strings.Contains(stderr, tt.note) {
				t.Errorf("stderr does not say %q:\n%.2000s", tt.note, stderr)
			}
			if len(stderr) > 10_000 {
				t.Errorf("stderr holds %d bytes", len(stderr))
			}
			if code, _, stderr := runMeasured(t, exe, "validate", path); code != 0 {
				t.Errorf("the written scenario does not validate:\n%.2000s", stderr)
			}
		})
	}
}

// runMeasured runs the binary with args within the hostile-input suite's
// time and peak-memory bounds, and returns its exit code and output.
func runMeasured(t *testing.T, exe string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*hostileTime)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("mcpchaos %s: %v", args[0], err)
	}
	peakc := make(chan int64, 1)
	stop := make(chan struct{})
	go func() { peakc <- watchPeak(cmd.Process.Pid, stop) }()
	err := cmd.Wait()
	took := time.Since(start)
	close(stop)
	peak := <-peakc
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("mcpchaos %s: %v", args[0], err)
	}
	if took > hostileTime {
		t.Errorf("mcpchaos %s took %s, want at most %s", args[0], took.Round(time.Millisecond), hostileTime)
	}
	if peak > hostileMemory {
		t.Errorf("mcpchaos %s peaked at %d MiB, want at most %d MiB", args[0], peak>>20, hostileMemory>>20)
	} else {
		t.Logf("mcpchaos %s: %s, %d MiB", args[0], took.Round(time.Millisecond), peak>>20)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// watchPeak returns the highest resident set the process pid reached
// (VmHWM of /proc/PID/status, in bytes), read every 5 ms until stop is
// closed. Not the rusage of the child: Go starts a child sharing the
// parent's memory until its exec, and Linux counts that memory's high
// mark (the test binary's, hundreds of MiB under -race beside in-process
// servers) in the child's ru_maxrss. VmHWM only rises, so a read
// misses at most the last 5 ms of growth before the exit.
func watchPeak(pid int, stop <-chan struct{}) int64 {
	path := fmt.Sprintf("/proc/%d/status", pid)
	var peak int64
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil {
			for line := range strings.Lines(string(b)) {
				if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
					peak = max(peak, kb<<10)
				}
			}
		}
		select {
		case <-stop:
			return peak
		case <-tick.C:
		}
	}
}
