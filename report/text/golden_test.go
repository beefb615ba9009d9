package report

import (
	"bytes"
	"flag"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", name), got, *update)
}

func TestGoldenText(t *testing.T) {
	var b bytes.Buffer
	if err := goldenSummary().Text(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.txt.golden", b.Bytes())
}

func TestGoldenJSON(t *testing.T) {
	var b bytes.Buffer
	if err := goldenSummary().JSON(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.json.golden", b.Bytes())
}

// TestGoldenTextEmpty renders a run with no calls, so the "none"
// branches of every section are pinned too.
func TestGoldenTextEmpty(t *testing.T) {
	s := NewAggregator(Rules{}).Summary(Meta{Scenario: "empty", Era: "2025-06-18", Transport: "stdio", Target: "node server.js"})
	var b bytes.Buffer
	if err := s.Text(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "empty.txt.golden", b.Bytes())
}

func TestJSONRoundTrip(t *testing.T) {
	s := goldenSummary()
	var b bytes.Buffer
	if err := s.JSON(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSummary(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Started.Equal(s.Started) {
		t.Errorf("started = %v, want %v", back.Started, s.Started)
	}
	back.Started, back.hists = s.Started, s.hists
	if !reflect.DeepEqual(back, s) {
		t.Errorf("round trip changed the summary:\n got %+v\nwant %+v", back, s)
	}
	// The text of the summary read back is the same as the original's.
	var t1, t2 bytes.Buffer
	if err := s.Text(&t1); err != nil {
		t.Fatal(err)
	}
	if err := back.Text(&t2); err != nil {
		t.Fatal(err)
	}
	if t1.String() != t2.String() {
		t.Errorf("text differs after a JSON round trip:\n%s\n---\n%s", t1.String(), t2.String())
	}
}

func TestReadSummaryRejectsGarbage(t *testing.T) {
	if _, err := ReadSummary(bytes.NewReader([]byte("{not json"))); err == nil {
		t.Fatal("ReadSummary accepted broken JSON")
	}
}

func TestTextMarksInterruptedRuns(t *testing.T) {
	m := testMeta("2026-07-28")
	m.Interrupted = true
	var b bytes.Buffer
	if err := NewAggregator(Rules{}).Summary(m).Text(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte("INTERRUPTED")) {
		t.Errorf("the text of an interrupted run does not say so:\n%s", b.String())
	}
}
