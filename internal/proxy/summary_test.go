package proxy

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
)

// TestSummaryTextEscapes: the proxy's summary text shows what a client or
// a proxy file put in its strings escaped, never as terminal control.
func TestSummaryTextEscapes(t *testing.T) {
	const forged = "boom\x1b]0;owned\x07\x1b[2J\r\nResult        PASS\n\u009b31m"
	var b bytes.Buffer
	if err := (&Summary{Name: forged, Listen: "127.0.0.1:1", Faults: map[string]int{forged: 1}}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	testutil.CheckPrintable(t, "the text", b.String())
	if !strings.Contains(b.String(), `mcpchaos proxy boom\x1b]0;owned\a`) {
		t.Errorf("the name is not shown escaped:\n%s", b.String())
	}
}

// TestPercentiles: the summary's percentiles are the histogram's, in
// milliseconds, the maximum exact; an empty histogram gives zeros.
func TestPercentiles(t *testing.T) {
	if got := percentiles(report.NewDurations()); got != (Percentiles{}) {
		t.Errorf("empty: %+v, want zeros", got)
	}
	h := report.NewDurations()
	for i := 1; i <= 100; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	h.Record(1234567 * time.Microsecond)
	got := percentiles(h)
	// Three significant figures: a percentile is its bucket's highest value.
	if got.Count != 101 || got.Max != 1234.567 || got.P50 < 51 || got.P50 > 51.1 || got.P99 < 100 || got.P99 > 100.1 {
		t.Errorf("percentiles %+v, want count 101, p50 51ms and p99 100ms to 3 figures, max 1234.567ms exact", got)
	}
}
