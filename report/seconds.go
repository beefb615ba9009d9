package report

import (
	"maps"
	"math/bits"
	"slices"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpchaos/mcpchaos/results"
)

// The run second by second, for plots and interval logs. Each wall-clock
// second (whole Unix seconds, so files from several processes line up)
// keeps its counts and, per histogram, a sparse map from a value's HDR
// bucket (its lowest equivalent value in the run-wide histogram's
// geometry) to a count. A second's histogram is therefore exactly the
// run-wide histogram restricted to the calls that ended in that second,
// and memory grows with the distinct latencies of each second, not with
// the number of calls.

// Second is what happened in one wall-clock second of the run.
type Second struct {
	// Start is the second's first instant.
	Start time.Time
	// Scheduled is the offered load: calls scheduled in the second (dropped
	// ones included, re-issues and retries not).
	Scheduled int
	// Outcomes counts the calls that ended in the second, by outcome.
	Outcomes map[string]int
	// Phases counts the calls scheduled in the second by the phase of
	// the search that sent them (mcpchaos limits); nil in a run.
	Phases map[string]int

	lat [numHists]map[int64]int64
}

// Ended returns how many calls ended in the second.
func (s *Second) Ended() int {
	n := 0
	for _, c := range s.Outcomes {
		n += c
	}
	return n
}

// Histogram returns the named histogram (one of HistogramNames, in
// microseconds) of the calls that ended in the second: a new
// HdrHistogram with the run-wide geometry, or nil for an unknown name.
func (s *Second) Histogram(name string) *hdrhistogram.Histogram {
	i := histIndex(name)
	if i < 0 {
		return nil
	}
	h := hdrhistogram.New(1, latencyMaxUs, sigFigs)
	for v, n := range s.lat[i] {
		// v is a bucket's lowest value of this very geometry: in range.
		_ = h.RecordValues(v, n)
	}
	return h
}

// subBucketBits is log2 of the sub-bucket count of an HdrHistogram with
// lowest value 1 and sigFigs significant figures (2048 for three).
const subBucketBits = 11

// bucketFloor returns the lowest value that an HdrHistogram of the run's
// geometry (lowest 1, three significant figures) counts in the same bucket
// as v ≥ 0: values below 2048 are exact; above, the bits below the top 11
// are dropped.
func bucketFloor(v int64) int64 {
	shift := bits.Len64(uint64(v)) - subBucketBits
	if shift <= 0 {
		return v
	}
	return v >> shift << shift
}

// secondAgg accumulates one second.
type secondAgg struct {
	scheduled int
	outcomes  map[string]int
	phases    map[string]int
	lat       [numHists]map[int64]int64
}

// seconds accumulates the run second by second, keyed by Unix second.
type seconds map[int64]*secondAgg

func (ss *seconds) at(t time.Time) *secondAgg {
	if *ss == nil {
		*ss = make(seconds)
	}
	k := floorDiv(t.UnixNano(), int64(time.Second))
	s := (*ss)[k]
	if s == nil {
		s = &secondAgg{outcomes: make(map[string]int)}
		(*ss)[k] = s
	}
	return s
}

// add counts one call: its schedule in the second it was scheduled (when
// it is offered load), its outcome and latencies in the second it ended.
// vals are the call's values by histogram index, -1 where it has none.
func (ss *seconds) add(r *results.Record, vals *[numHists]int64) {
	if r.Scheduled.IsZero() {
		return
	}
	if r.Retry == "" {
		ss.at(r.Scheduled).scheduled++
	}
	if r.Phase != "" {
		s := ss.at(r.Scheduled)
		if s.phases == nil {
			s.phases = make(map[string]int)
		}
		s.phases[r.Phase]++
	}
	end := ss.at(r.Scheduled.Add(time.Duration(max(r.ResponseUs, r.EndUs)) * time.Microsecond))
	end.outcomes[r.Outcome]++
	for i, v := range vals {
		if v < 0 {
			continue
		}
		if end.lat[i] == nil {
			end.lat[i] = make(map[int64]int64)
		}
		end.lat[i][bucketFloor(max(0, min(v, latencyMaxUs)))]++
	}
}

// KeepSeconds says whether the Aggregator keeps the run second by second
// (the default): only the HTML report's plots and the hlog interval log
// use it, and it is the one part of an Aggregator that grows with the
// run's length and rate (a sparse histogram per second, tens of KiB a
// second at hundreds of calls a second). A run that writes neither turns
// it off, so that a long run holds flat. Call it before the first Add.
func (a *Aggregator) KeepSeconds(keep bool) { a.noSeconds = !keep }

// maxGapFill bounds the span over which Seconds fills empty seconds: a
// week, the longest run a scenario may ask for. Records spread wider (a
// damaged or hand-made file) get only their non-empty seconds, so the
// result never grows with the span.
const maxGapFill = 7 * 24 * 3600

// Seconds returns the run second by second, from the first second in
// which anything happened to the last, with empty seconds in between
// included so a time axis has no gaps (within maxGapFill). The result is
// a copy; nil after KeepSeconds(false).
func (a *Aggregator) Seconds() []Second {
	if a.noSeconds {
		return nil
	}
	if len(a.seconds) == 0 {
		return nil
	}
	keys := slices.Sorted(func(yield func(int64) bool) {
		for k := range a.seconds {
			if !yield(k) {
				return
			}
		}
	})
	first, last := keys[0], keys[len(keys)-1]
	if last-first >= maxGapFill {
		out := make([]Second, 0, len(keys))
		for _, k := range keys {
			out = append(out, a.seconds[k].second(k))
		}
		return out
	}
	out := make([]Second, 0, last-first+1)
	for k := first; k <= last; k++ {
		out = append(out, a.seconds[k].second(k))
	}
	return out
}

// second copies the accumulated second k (nil: an empty second).
func (s *secondAgg) second(k int64) Second {
	out := Second{Start: time.Unix(k, 0).UTC(), Outcomes: map[string]int{}}
	if s == nil {
		return out
	}
	out.Scheduled = s.scheduled
	maps.Copy(out.Outcomes, s.outcomes)
	out.Phases = maps.Clone(s.phases)
	for i, m := range s.lat {
		out.lat[i] = maps.Clone(m)
	}
	return out
}
