package report

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestGoldenJSON pins the JSON of the golden run; report/text renders it
// (its summary.txt.golden).
func TestGoldenJSON(t *testing.T) {
	var b bytes.Buffer
	if err := goldenSummary().JSON(&b); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "summary.json.golden", b.Bytes())
}

// TestJSONRoundTrip: a summary read back from its JSON is the summary,
// but for the histograms, which the JSON does not carry.
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
	back.Started, back.Histograms = s.Started, s.Histograms
	if !reflect.DeepEqual(back, s) {
		t.Errorf("round trip changed the summary:\n got %+v\nwant %+v", back, s)
	}
}

func TestReadSummaryRejectsGarbage(t *testing.T) {
	if _, err := ReadSummary(bytes.NewReader([]byte("{not json"))); err == nil {
		t.Fatal("ReadSummary accepted broken JSON")
	}
}

// TestInterruptedRunSaysSo: the summary of an interrupted run says so
// (the text marks it INTERRUPTED).
func TestInterruptedRunSaysSo(t *testing.T) {
	m := testMeta("2026-07-28")
	m.Interrupted = true
	if s := NewAggregator(Rules{}).Summary(m); !s.Interrupted {
		t.Error("the summary of an interrupted run does not say so")
	}
}
