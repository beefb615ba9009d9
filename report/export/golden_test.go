package export

import (
	"bytes"
	"context"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report/merge"
)

// runFile is the results file of a real run of the built-in target that
// report's own tests read (report/testdata/run.yaml says how it was made).
const runFile = "../testdata/run.jsonl"

// merged is runFile read the way `mcpchaos report` reads it.
func merged(t *testing.T) *merge.Merged {
	t.Helper()
	m, err := merge.Merge(context.Background(), []string{runFile}, merge.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestExportGolden writes the checked-in run in every format of this
// package but vegeta's (vegeta_test.go reads those back with vegeta).
func TestExportGolden(t *testing.T) {
	m := merged(t)
	var b bytes.Buffer
	if err := JUnit(&b, m.Summary()); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "run.junit.xml.golden", b.Bytes())
	b.Reset()
	if err := WriteHgrm(&b, m.Agg, "call"); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "run.call.hgrm.golden", b.Bytes())
	b.Reset()
	if err := WriteHlog(&b, m.Agg); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "run.hlog.golden", b.Bytes())
	if err := WriteHgrm(&b, m.Agg, "nope"); err == nil {
		t.Error("WriteHgrm wrote an unknown histogram")
	}
}
