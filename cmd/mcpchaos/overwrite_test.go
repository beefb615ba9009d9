package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// overwriteCase is a command whose outputs name one of its inputs (or one
// another), run in a directory of files, and what its error must say.
type overwriteCase struct {
	name string
	// files are made in a new directory $D (name → content, where $D
	// is replaced; "->X" makes a symbolic link to X, "=>X" a hard link
	// to X).
	files map[string]string
	args  []string // $D is the directory
	want  []string // in stderr
}

// overwriteScenario and overwriteProxyFile are a scenario and a proxy file
// the cases try to overwrite.
const (
	overwriteScenario  = "target: {builtin: {}}\ncalls: [{tool: echo}]\nload: {rate: 1/s, duration: 1s}\n"
	overwriteProxyFile = "listen: 127.0.0.1:0\nupstream: {http: {url: 'http://127.0.0.1:9/mcp'}}\n"
)

// overwriteReportRunCases are report's outputs over its inputs, and run's
// over its scenario; results is the content of a results file.
func overwriteReportRunCases(results []byte) []overwriteCase {
	const scenario = overwriteScenario
	return []overwriteCase{
		{"report -o its input", map[string]string{"in.jsonl": string(results)},
			[]string{"report", "-o", "$D/in.jsonl", "$D/in.jsonl"}, []string{`--output "`, "in.jsonl", "the results file", "an output never overwrites an input"}},
		{"report -o its second input, gz", map[string]string{"a.jsonl": string(results), "b.jsonl.gz": "gz"},
			[]string{"report", "--format", "json", "-o", "$D/b.jsonl.gz", "$D/a.jsonl", "$D/b.jsonl.gz"}, []string{`--output "`, "b.jsonl.gz"}},
		{"report -o a path that cleans to its input", map[string]string{"in.jsonl": string(results)},
			[]string{"report", "-o", "$D/sub/../in.jsonl", "$D/in.jsonl"}, []string{"sub/../in.jsonl"}},
		{"report -o a symbolic link to its input", map[string]string{"in.jsonl": string(results), "link.txt": "->in.jsonl"},
			[]string{"report", "-o", "$D/link.txt", "$D/in.jsonl"}, []string{"link.txt", "in.jsonl"}},
		{"report -o a hard link to its input", map[string]string{"in.jsonl": string(results), "hard.txt": "=>in.jsonl"},
			[]string{"report", "-o", "$D/hard.txt", "$D/in.jsonl"}, []string{"hard.txt", "in.jsonl"}},
		{"report --format hgrm over an input", map[string]string{"in.jsonl": string(results), "out.call.hgrm": string(results)},
			[]string{"report", "--format", "hgrm", "-o", "$D/out.hgrm", "$D/in.jsonl", "$D/out.call.hgrm"}, []string{"out.call.hgrm"}},
		{"run -o its scenario", map[string]string{"c.yaml": scenario},
			[]string{"run", "$D/c.yaml", "-q", "-o", "$D/c.yaml"}, []string{`--output "`, "the scenario file"}},
		{"run --summary-json its scenario", map[string]string{"c.yaml": scenario},
			[]string{"run", "$D/c.yaml", "-q", "--summary-json", "$D/c.yaml"}, []string{`--summary-json "`, "the scenario file"}},
		{"run --html its scenario through a linked directory", map[string]string{"d/c.yaml": scenario, "l": "->d"},
			[]string{"run", "$D/d/c.yaml", "-q", "--html", "$D/l/c.yaml"}, []string{`--html "`, "l/c.yaml"}},
	}
}

// overwriteSharedPathCases are outputs on one path, over the files a
// scenario reads, and limits', proxy's and init's outputs over their inputs.
func overwriteSharedPathCases() []overwriteCase {
	const scenario, proxyFile = overwriteScenario, overwriteProxyFile
	return []overwriteCase{
		{"limits -o its scenario", map[string]string{"c.yaml": scenario},
			[]string{"limits", "$D/c.yaml", "-q", "-o", "$D/c.yaml"}, []string{`--output "`, "the scenario file"}},
		{"limits --summary-json and --junit on one path", map[string]string{"c.yaml": scenario},
			[]string{"limits", "$D/c.yaml", "-q", "--summary-json", "$D/s.json", "--junit", "$D/s.json"}, []string{"--junit", "--summary-json"}},
		{"run -o and --summary-json on one path", map[string]string{"c.yaml": scenario},
			[]string{"run", "$D/c.yaml", "-q", "-o", "$D/r.jsonl", "--summary-json", "$D/r.jsonl"}, []string{`--summary-json "`, `as --output "`, "each output needs a path of its own"}},
		{"run -o and --junit on one path", map[string]string{"c.yaml": scenario},
			[]string{"run", "$D/c.yaml", "-q", "-o", "$D/r.jsonl", "--junit", "$D/r.jsonl"}, []string{"--junit", "--output"}},
		{"run --vegeta and --hlog on one new path through a link", map[string]string{"c.yaml": scenario, "d/keep": "", "l": "->d"},
			[]string{"run", "$D/c.yaml", "-q", "--vegeta", "$D/d/x.bin", "--hlog", "$D/l/x.bin"}, []string{"--hlog", "--vegeta"}},
		{"run -o one of --hgrm's files", map[string]string{"c.yaml": scenario},
			[]string{"run", "$D/c.yaml", "-q", "-o", "$D/h.service.hgrm", "--hgrm", "$D/h.hgrm"}, []string{"--hgrm", "--output", "h.service.hgrm"}},
		{"run -o a log probe's file", map[string]string{
			"c.yaml":     scenario + "orphans: {probes: [{log: {file: $D/server.log, done: 'call (?P<id>\\d+) done'}}]}\n",
			"server.log": "call 1 done\n"},
			[]string{"run", "$D/c.yaml", "-q", "-o", "$D/server.log"}, []string{"orphans.probes[0].log.file", "server.log"}},
		{"run -o the built-in target's log_calls", map[string]string{"c.yaml": "target: {builtin: {log_calls: $D/calls.log}}\ncalls: [{tool: echo}]\nload: {rate: 1/s, duration: 1s}\n"},
			[]string{"run", "$D/c.yaml", "-q", "-o", "$D/calls.log"}, []string{"target.builtin.log_calls", "--output"}},
		{"run -o a TLS file", map[string]string{
			"c.yaml": "target: {http: {url: 'https://127.0.0.1:9/mcp', tls: {ca_file: $D/ca.pem}}}\ncalls: [{tool: echo}]\nload: {rate: 1/s, duration: 1s}\n",
			"ca.pem": "x"},
			[]string{"run", "$D/c.yaml", "-q", "--summary-json", "$D/ca.pem"}, []string{"target.http.tls.ca_file"}},
		{"proxy --output its file", map[string]string{"p.yaml": proxyFile},
			[]string{"proxy", "--output", "$D/p.yaml", "$D/p.yaml"}, []string{`--output "`, "the proxy file"}},
		{"proxy --summary-json its file", map[string]string{"p.yaml": proxyFile},
			[]string{"proxy", "--summary-json", "$D/p.yaml", "$D/p.yaml"}, []string{`--summary-json "`, "the proxy file"}},
		{"proxy --output and --summary-json on one path", map[string]string{"p.yaml": proxyFile},
			[]string{"proxy", "--output", "$D/o.json", "--summary-json", "$D/o.json", "$D/p.yaml"}, []string{"--summary-json", "--output", "each output needs a path of its own"}},
		{"init --force over its server's script", map[string]string{"server.sh": "#!/bin/sh\n"},
			[]string{"init", "--force", "-o", "$D/server.sh", "--", "sh", "$D/server.sh"}, []string{"word 2 of the stdio command", "server.sh"}},
	}
}

// TestNoOutputDestroysAnInput: every command that writes files refuses,
// with exit status 2 and before it opens anything, an output that is one
// of its inputs (by name, through a symbolic link, or a hard link) or
// another of its outputs; the inputs are left as they were and no output
// is created.
func TestNoOutputDestroysAnInput(t *testing.T) {
	t.Parallel()
	results, err := os.ReadFile("../../report/testdata/run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range slices.Concat(overwriteReportRunCases(results), overwriteSharedPathCases()) {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			makeFiles(t, dir, tt.files)
			before := snapshotDir(t, dir)
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				args[i] = strings.ReplaceAll(a, "$D", dir)
			}
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			if code != 2 {
				t.Errorf("exit code %d, want 2\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr)
				}
			}
			if after := snapshotDir(t, dir); after != before {
				t.Errorf("the directory changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// TestOverwritesAllowed: what shares no file is accepted: standard output
// twice is refused elsewhere (outputs.open), and a log probe may read the
// built-in target's log_calls.
func TestOverwritesAllowed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name            string
		inputs, outputs []fileUse
	}{
		{"no outputs", []fileUse{{"the results file", "a"}, {"the results file", "a"}}, nil},
		{"standard output and empty paths", []fileUse{{"the scenario file", "-"}}, []fileUse{{"--output", "-"}, {"--html", ""}, {"--junit", ""}}},
		{"different files", []fileUse{{"the scenario file", filepath.Join(dir, "c.yaml")}},
			[]fileUse{{"--output", filepath.Join(dir, "c.yaml.jsonl")}, {"--junit", filepath.Join(dir, "c.xml")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkOverwrites(tt.inputs, tt.outputs); err != nil {
				t.Error(err)
			}
		})
	}
	t.Run("log_calls read by a log probe", func(t *testing.T) {
		path := writeScenario(t, "c.yaml", "target: {builtin: {log_calls: calls.log}}\ncalls: [{tool: echo}]\nload: {rate: 1/s, duration: 1s}\n"+
			"orphans: {probes: [{log: {file: calls.log, done: 'call (?P<id>\\d+) done'}}]}\n")
		fs, f := newRunFlags(io.Discard)
		prep, err := prepareRun(fs, f, path)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkRunFiles(path, prep.Scenario, []fileUse{{"--output", filepath.Join(dir, "r.jsonl")}}); err != nil {
			t.Error(err)
		}
	})
}

// makeFiles makes files in dir, $D in their content replaced by dir:
// content "->X" is a symbolic link to X,
// "=>X" a hard link to X (made after the plain files).
func makeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for pass := range 2 {
		for name, content := range files {
			path := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			target, link := strings.CutPrefix(content, "->")
			hardTarget, hard := strings.CutPrefix(content, "=>")
			var err error
			switch {
			case pass == 0 && !link && !hard:
				err = os.WriteFile(path, []byte(strings.ReplaceAll(content, "$D", dir)), 0o644)
			case pass == 1 && link:
				err = os.Symlink(target, path)
			case pass == 1 && hard:
				err = os.Link(filepath.Join(dir, hardTarget), path)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// snapshotDir lists every file under dir with its content.
func snapshotDir(t *testing.T, dir string) string {
	t.Helper()
	var b bytes.Buffer
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.Type()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			b.WriteString(rel + " -> " + target + "\n")
			return nil
		}
		content, err := os.ReadFile(path)
		b.WriteString(rel + ": " + string(content[:min(len(content), 200)]) + "\n")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestOverwriteRelativePath: a relative path and the absolute path of the
// same file not created yet are one file.
func TestOverwriteRelativePath(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	err = checkOverwrites([]fileUse{{"the results file", "no-such-file.jsonl"}},
		[]fileUse{{"--output", filepath.Join(wd, "sub", "..", "no-such-file.jsonl")}})
	if err == nil || !strings.Contains(err.Error(), `the results file "no-such-file.jsonl"`) {
		t.Errorf("got %v, want the relative and absolute paths refused as one file", err)
	}
}
