package merge

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/report/text"
	"github.com/mcpchaos/mcpchaos/results"
)

// runFile is a results file of a real run of the built-in target, which
// report's tests read too (report/testdata/run.yaml says how it was made).
const runFile = "../testdata/run.jsonl"

// mergeSummary merges paths and returns the summary's text and JSON.
func mergeSummary(t *testing.T, paths ...string) (txt, js string, m *Merged) {
	t.Helper()
	m, err := Merge(context.Background(), paths, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Summary()
	var tb, jb bytes.Buffer
	if err := text.Write(&tb, s); err != nil {
		t.Fatal(err)
	}
	if err := s.JSON(&jb); err != nil {
		t.Fatal(err)
	}
	return tb.String(), jb.String(), m
}

// TestReportGolden renders the checked-in run as text and JSON (report/export
// pins the other formats).
func TestReportGolden(t *testing.T) {
	text, js, m := mergeSummary(t, runFile)
	if len(m.Notes) != 0 {
		t.Errorf("notes for a complete file: %q", m.Notes)
	}
	testutil.Golden(t, "run.txt.golden", []byte(text))
	testutil.Golden(t, "run.json.golden", []byte(js))
}

// TestReportEqualsRun: the summary rebuilt from the file is the one the
// run wrote in its trailer (the file's records, checks and run inputs are
// all it needs).
func TestReportEqualsRun(t *testing.T) {
	f, err := results.Open(runFile)
	if err != nil {
		t.Fatal(err)
	}
	_, js, _ := mergeSummary(t, runFile)
	var want, got any
	if err := json.Unmarshal(f.Trailer.Summary, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(js), &got); err != nil {
		t.Fatal(err)
	}
	want.(map[string]any)["schema_version"] = got.(map[string]any)["schema_version"]
	pruneNewKeys(got, want) // keys added since the file was written
	wb, _ := json.Marshal(want)
	gb, _ := json.Marshal(got)
	if !bytes.Equal(wb, gb) {
		t.Errorf("rebuilt summary differs from the run's:\n got %s\nwant %s", gb, wb)
	}
}

// pruneNewKeys removes from got, recursively, the object keys that old
// lacks: the summary keys added after a stored run wrote its trailer.
func pruneNewKeys(got, old any) {
	g, ok1 := got.(map[string]any)
	o, ok2 := old.(map[string]any)
	if !ok1 || !ok2 {
		return
	}
	for k, v := range g {
		ov, ok := o[k]
		if !ok {
			delete(g, k)
			continue
		}
		pruneNewKeys(v, ov)
	}
}

// writeResults writes a results file.
func writeResults(t *testing.T, path string, h results.Header, recs []results.Record, tr *results.Trailer) {
	t.Helper()
	lines := []any{&h}
	for i := range recs {
		lines = append(lines, &recs[i])
	}
	if tr != nil {
		lines = append(lines, tr)
	}
	writeLines(t, path, lines...)
}

// TestMergeEqualsOneFile: the report of two files, each with half of a
// run's calls and a share of its run inputs, equals the report of the
// whole run.
func TestMergeEqualsOneFile(t *testing.T) {
	f, err := results.Open(runFile)
	if err != nil {
		t.Fatal(err)
	}
	in, err := report.DecodeInputs(f.Trailer.Run)
	if err != nil {
		t.Fatal(err)
	}
	// Split the inputs: the counts of the second file are what the first
	// lacks, so they add up to the whole.
	first, second := in, report.RunInputs{Duration: in.Duration}
	first.Connection.UnknownTokens, second.Connection.UnknownTokens = 2, in.Connection.UnknownTokens-2+3
	in.Connection.UnknownTokens += 3
	first.Orphans.Drained, second.Orphans.Drained = true, true
	whole := *f.Trailer
	whole.Run = mustInputs(t, in)
	dir := t.TempDir()
	all := filepath.Join(dir, "all.jsonl")
	writeResults(t, all, f.Header, f.Records, &whole)
	var even, odd []results.Record
	for i, r := range f.Records {
		if i%2 == 0 {
			even = append(even, r)
		} else {
			odd = append(odd, r)
		}
	}
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl.gz")
	ta, tb := *f.Trailer, *f.Trailer
	ta.Run, tb.Run = mustInputs(t, first), mustInputs(t, second)
	// The second half's header is another run's (a start 1 ns later): the
	// same header twice is the same run given twice, refused.
	hb := f.Header
	hb.Started = hb.Started.Add(time.Nanosecond)
	writeResults(t, a, f.Header, even, &ta)
	writeResults(t, b, hb, odd, &tb)

	wantText, wantJSON, _ := mergeSummary(t, all)
	gotText, gotJSON, m := mergeSummary(t, a, b)
	if len(m.Notes) != 0 {
		t.Errorf("notes merging two halves of one run: %q", m.Notes)
	}
	if gotText != wantText {
		t.Errorf("text of the merge:\n%s\nof the whole:\n%s", gotText, wantText)
	}
	if gotJSON != wantJSON {
		t.Errorf("JSON of the merge:\n%s\nof the whole:\n%s", gotJSON, wantJSON)
	}
	if !strings.Contains(gotJSON, `"unknown_tokens": 3`) && in.Connection.UnknownTokens == 3 {
		t.Errorf("connection counts did not add:\n%s", gotJSON)
	}
}

func mustInputs(t *testing.T, in report.RunInputs) json.RawMessage {
	t.Helper()
	b, err := report.EncodeInputs(in)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMergeOtherScenario: a file of another scenario is a note (the first
// file's checks are used), or with SameScenario an error.
func TestMergeOtherScenario(t *testing.T) {
	f, err := results.Open(runFile)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.jsonl")
	h := f.Header
	h.Scenario, h.Seed = "another", 99
	writeResults(t, other, h, f.Records[:3], f.Trailer)
	_, _, m := mergeSummary(t, runFile, other)
	if len(m.Notes) != 1 || !strings.Contains(m.Notes[0], `scenario "another", not "golden-report", seed 99, not 13`) ||
		!strings.Contains(m.Notes[0], "checks, fail_on_violation and progress rules are "+runFile+"'s") {
		t.Errorf("notes %q", m.Notes)
	}
	if len(m.Checks) != 3 {
		t.Errorf("%d checks, want the first file's 3", len(m.Checks))
	}
	_, err = Merge(context.Background(), []string{runFile, other}, MergeOptions{SameScenario: true})
	if err == nil || !strings.Contains(err.Error(), "other.jsonl ran another scenario") {
		t.Errorf("SameScenario: %v", err)
	}
}

// TestMergeOldAndTornFiles: a file of schema 1 (no evaluation in the
// header, no run inputs in the trailer) takes its checks from the
// trailer's summary; a file without trailer has no run inputs; both say
// so in a note.
func TestMergeOldAndTornFiles(t *testing.T) {
	f, err := results.Open(runFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	old := filepath.Join(dir, "old.jsonl")
	h, tr := f.Header, *f.Trailer
	h.Evaluation, h.SchemaVersion, tr.Run = nil, 0, nil
	writeResults(t, old, h, f.Records, &tr)
	_, js, m := mergeSummary(t, old)
	if len(m.Checks) != 3 || !m.FailOnViolation {
		t.Errorf("checks %v, fail_on_violation %v; want the 3 of the trailer's summary and true", m.Checks, m.FailOnViolation)
	}
	if len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "orphan probes and background faults are not re-evaluated") {
		t.Errorf("notes %q", m.Notes)
	}
	var ran struct {
		Duration json.Number `json:"duration_s"`
	}
	if err := json.Unmarshal(f.Trailer.Summary, &ran); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js, `"p99(call) < 100ms"`) || !strings.Contains(js, `"duration_s": `+ran.Duration.String()) {
		t.Errorf("summary of the old file:\n%s", js)
	}

	torn := filepath.Join(dir, "torn.jsonl")
	writeResults(t, torn, f.Header, f.Records, nil)
	_, _, m = mergeSummary(t, torn)
	if len(m.Checks) != 3 || len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "has no trailer") {
		t.Errorf("checks %d, notes %q", len(m.Checks), m.Notes)
	}
}
