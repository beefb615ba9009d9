package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reportScenario is a short run of the built-in target with faults and
// checks, so every section of the summary has something in it.
const reportScenario = `name: report-cmd
seed: 7
target:
  builtin: {transport: http}
load: {rate: 40/1s, duration: 1s}
timeouts: {idle: 2s, max: 5s}
calls:
  - {tool: slow_task, weight: 3, arguments: {steps: 4, step_ms: 20}, progress: true}
  - {tool: echo, weight: 1, arguments: {text: hi}}
faults:
  - {kind: cancel, probability: 0.3, tools: [slow_task], after: 30ms}
orphans: {grace: 200ms}
checks:
  - progress.violations.total == 0
  - p99(call) < 1ms
`

// TestReportReproducesRun: `report` over the results file of a run prints
// the very text and JSON summary `run` printed, exits as run did (a check
// fails: 1), and writes the same JUnit and hlog.
func TestReportReproducesRun(t *testing.T) {
	dir := t.TempDir()
	path := writeScenario(t, "s.yaml", reportScenario)
	out := func(name string) string { return filepath.Join(dir, name) }
	code, runText, stderr := runCLI(t, context.Background(), "run", path, "-q", "-o", out("r.jsonl.gz"),
		"--summary-json", out("s.json"), "--junit", out("j.xml"), "--hlog", out("h.hlog"), "--hgrm", out("h.hgrm"),
		"--vegeta", out("v.json"))
	if code != 1 {
		t.Fatalf("run exit %d, want 1 (p99(call) < 1ms fails); stderr:\n%s", code, stderr)
	}
	for _, tt := range []struct {
		name, format, file string
	}{
		{"text", "text", ""},
		{"json", "json", "s.json"},
		{"junit", "junit", "j.xml"},
		{"hlog", "hlog", "h.hlog"},
		{"hgrm call", "hgrm", "h.call.hgrm"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			target := out("report-" + tt.name)
			code, stdout, stderr := runCLI(t, context.Background(), "report", "--format", tt.format, "-o", target, out("r.jsonl.gz"))
			if code != 1 || stdout != "" || stderr != "" {
				t.Fatalf("report exit %d, stdout %q, stderr %q; want 1 and nothing printed", code, stdout, stderr)
			}
			if tt.format == "hgrm" {
				target = hgrmPath(target, "call")
			}
			got := readFile(t, target)
			want := runText
			if tt.file != "" {
				want = readFile(t, out(tt.file))
			}
			if got != want {
				t.Errorf("report --format %s differs from what run wrote:\n--- report\n%s\n--- run\n%s", tt.format, got, want)
			}
		})
	}
	if v := readFile(t, out("v.json")); strings.Count(v, "\n") < 20 || !strings.Contains(v, `"attack":"report-cmd"`) {
		t.Errorf("vegeta results of run:\n%.500s", v)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRunOpensOutputsFirst: an output in a missing directory is exit 2
// before any call, and the outputs already created are removed.
func TestRunOpensOutputsFirst(t *testing.T) {
	dir := t.TempDir()
	path := writeScenario(t, "s.yaml", reportScenario)
	for _, flag := range []string{"--summary-json", "--junit", "--hgrm", "--hlog", "--vegeta", "--output"} {
		t.Run(flag, func(t *testing.T) {
			results := filepath.Join(dir, "r.jsonl")
			args := []string{"run", path, "-q", flag, filepath.Join(dir, "missing", "x")}
			if flag != "--output" {
				args = append(args, "-o", results)
			}
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			if code != 2 || !strings.Contains(stderr, flag) || !strings.Contains(stderr, "missing") {
				t.Fatalf("exit %d, stderr %q; want 2 naming %s and the path", code, stderr, flag)
			}
			if stdout != "" {
				t.Errorf("a run that could not open its outputs printed %q", stdout)
			}
			if _, err := os.Stat(results); !os.IsNotExist(err) {
				t.Errorf("the results file was left behind (%v)", err)
			}
		})
	}
}

// TestRunSummaryJSONToStdout: --summary-json - writes the JSON on standard
// output (and the text summary moves to stderr); two outputs on standard
// output are a usage error.
func TestRunSummaryJSONToStdout(t *testing.T) {
	path := writeScenario(t, "s.yaml", strings.Replace(reportScenario, "  - p99(call) < 1ms\n", "", 1))
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "run", path, "-q", "--summary-json", "-", "-o", filepath.Join(dir, "r.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "{\n") || !strings.Contains(stdout, `"schema_version"`) {
		t.Errorf("stdout is not the JSON summary:\n%.300s", stdout)
	}
	if !strings.Contains(stderr, "Result        PASS") {
		t.Errorf("the text summary is not on stderr:\n%s", stderr)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`a file named "-" was created`)
	}
	code, _, stderr = runCLI(t, context.Background(), "run", path, "-q", "--summary-json", "-", "--junit", "-")
	if code != 2 || !strings.Contains(stderr, "both write to standard output") {
		t.Errorf("exit %d, stderr %q; want 2: both write to standard output", code, stderr)
	}
}

func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	notResults := filepath.Join(dir, "x.jsonl")
	if err := os.WriteFile(notResults, []byte(`{"type":"call"}`+"\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"report"}, "want at least one results file"},
		{"missing file", []string{"report", filepath.Join(dir, "none.jsonl")}, "none.jsonl"},
		{"not a results file", []string{"report", notResults}, "x.jsonl: line 1: no header"},
		{"unknown format", []string{"report", "--format", "pdf", notResults}, `--format "pdf"`},
		{"unknown vegeta format", []string{"report", "--format", "vegeta", "--vegeta-format", "xml", notResults}, `--vegeta-format "xml"`},
		{"output in a missing directory", []string{"report", "-o", filepath.Join(dir, "no", "x"), notResults}, "create"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, context.Background(), tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}
