package report

import (
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpchaos/mcpchaos/results"
)

// TestBucketFloorMatchesHdr: bucketFloor is the lowest value of v's bucket
// in the run's HdrHistogram geometry, for values across the whole range.
func TestBucketFloorMatchesHdr(t *testing.T) {
	h := hdrhistogram.New(1, latencyMaxUs, sigFigs)
	for _, v := range []int64{0, 1, 2047, 2048, 2049, 4095, 4096, 4097, 12345, 999_999, 1_000_001, 123_456_789, latencyMaxUs} {
		f := bucketFloor(v)
		if f > v || !h.ValuesAreEquivalent(f, v) {
			t.Errorf("bucketFloor(%d) = %d: not in v's bucket", v, f)
		}
		if f > 0 && h.ValuesAreEquivalent(f-1, v) {
			t.Errorf("bucketFloor(%d) = %d: %d is in the same bucket, so it is not the lowest", v, f, f-1)
		}
	}
}

// TestSecondsSplitTheRun: each second holds the calls that ended in it,
// its histogram is the run's restricted to them, and empty seconds between
// are filled.
func TestSecondsSplitTheRun(t *testing.T) {
	a := NewAggregator(Rules{})
	t0 := time.Unix(1_700_000_000, 0)
	call := func(at time.Duration, respUs int64, outcome string) *results.Record {
		return &results.Record{Type: results.TypeCall, Scheduled: t0.Add(at), SentUs: 10, ResponseUs: respUs, EndUs: respUs, Outcome: outcome}
	}
	a.Add(call(100*time.Millisecond, 200_000, results.OK))        // ends in second 0
	a.Add(call(900*time.Millisecond, 300_000, results.OK))        // scheduled in 0, ends in 1
	a.Add(call(3500*time.Millisecond, 12_345, results.Throttled)) // second 3
	secs := a.Seconds()
	if len(secs) != 4 {
		t.Fatalf("got %d seconds, want 4 (0..3 with 2 empty)", len(secs))
	}
	if secs[0].Scheduled != 2 || secs[0].Ended() != 1 || secs[1].Ended() != 1 || secs[2].Ended() != 0 {
		t.Errorf("counts: %+v", secs)
	}
	if secs[3].Outcomes[results.Throttled] != 1 {
		t.Errorf("second 3 outcomes = %v", secs[3].Outcomes)
	}
	if got := secs[1].Histogram("call").Max(); !a.Histogram("call").ValuesAreEquivalent(got, 300_000) {
		t.Errorf("second 1 call max = %d, want about 300000", got)
	}
	merged := hdrhistogram.New(1, latencyMaxUs, sigFigs)
	for _, s := range secs {
		merged.Merge(s.Histogram("call"))
	}
	if !merged.Equals(a.Histogram("call")) {
		t.Error("the seconds' call histograms do not add up to the run's")
	}
	if secs[0].Histogram("nope") != nil {
		t.Error("unknown histogram name gave a histogram")
	}
}

// TestSecondsFarApart: records spread wider than maxGapFill give their
// non-empty seconds only, so a damaged file cannot make Seconds huge.
func TestSecondsFarApart(t *testing.T) {
	a := NewAggregator(Rules{})
	for _, at := range []time.Time{time.Unix(1, 0), time.Unix(4_000_000_000, 0)} {
		a.Add(&results.Record{Type: results.TypeCall, Scheduled: at, ResponseUs: 5, Outcome: results.OK})
	}
	if n := len(a.Seconds()); n != 2 {
		t.Errorf("got %d seconds, want the 2 non-empty ones", n)
	}
}
