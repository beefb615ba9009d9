package report

import (
	"slices"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// The throttling onset and the best ok rate are measured in one-second
// windows aligned to the first scheduled call. Records arrive in completion
// order, so the first scheduled call may be seen late; the timeline
// therefore counts calls in 10 ms slots of absolute time and groups the
// slots into windows only when asked. A window edge is thus exact to 10 ms,
// memory grows with the run's length (12 bytes per 10 ms of activity), not
// with its rate, and the result does not depend on the order of records.
const (
	slotNs         = int64(10 * time.Millisecond)
	slotsPerWindow = int64(time.Second) / slotNs
	// onsetPercent: throttled calls at least this share of a window's
	// scheduled calls mark the onset.
	onsetPercent = 1
)

// slot counts the calls of one 10 ms slot.
type slot struct {
	scheduled int32 // calls scheduled in the slot, dropped ones included
	throttled int32 // throttled calls scheduled in the slot
	ok        int32 // ok calls answered in the slot
}

// chunk is the 100 slots of one absolute second.
type chunk [slotsPerWindow]slot

// timeline counts scheduled, throttled and ok calls over time.
type timeline struct {
	chunks map[int64]*chunk // by floor(unix ns / 1 s)
	first  time.Time        // the earliest scheduled call; zero when empty
}

// slotAt returns the slot holding time t, creating it.
func (tl *timeline) slotAt(t time.Time) *slot {
	n := floorDiv(t.UnixNano(), slotNs)
	c := floorDiv(n, slotsPerWindow)
	if tl.chunks == nil {
		tl.chunks = make(map[int64]*chunk)
	}
	ch := tl.chunks[c]
	if ch == nil {
		ch = new(chunk)
		tl.chunks[c] = ch
	}
	return &ch[n-c*slotsPerWindow]
}

// add counts one call.
func (tl *timeline) add(r *results.Record) {
	if r.Scheduled.IsZero() {
		return
	}
	if r.Retry != "" {
		// A re-issue or retry is not offered load: count only its answer.
		if r.Outcome == results.OK {
			tl.slotAt(r.Scheduled.Add(time.Duration(max(r.ResponseUs, r.EndUs))*time.Microsecond)).ok++
		}
		return
	}
	if tl.first.IsZero() || r.Scheduled.Before(tl.first) {
		tl.first = r.Scheduled
	}
	s := tl.slotAt(r.Scheduled)
	s.scheduled++
	if r.Outcome == results.Throttled {
		s.throttled++
	}
	if r.Outcome == results.OK {
		at := r.ResponseUs
		if at <= 0 {
			at = r.EndUs
		}
		tl.slotAt(r.Scheduled.Add(time.Duration(at)*time.Microsecond)).ok++
	}
}

// window is the counts of one second.
type window struct{ scheduled, throttled, ok int }

// windows groups the slots into one-second windows aligned to the slot of
// the first scheduled call; index 0 is the first window.
func (tl *timeline) windows() []window {
	if tl.first.IsZero() {
		return nil
	}
	anchor := floorDiv(tl.first.UnixNano(), slotNs)
	keys := make([]int64, 0, len(tl.chunks))
	for k := range tl.chunks {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []window
	for _, k := range keys {
		ch := tl.chunks[k]
		for i := range ch {
			s := ch[i]
			if s == (slot{}) {
				continue
			}
			w := floorDiv(k*slotsPerWindow+int64(i)-anchor, slotsPerWindow)
			if w < 0 {
				continue // cannot happen: nothing precedes the first call
			}
			for int64(len(out)) <= w {
				out = append(out, window{})
			}
			out[w].scheduled += int(s.scheduled)
			out[w].throttled += int(s.throttled)
			out[w].ok += int(s.ok)
		}
	}
	return out
}

// onset returns the offered rate (calls scheduled per second) of the first
// window in which throttled calls are at least onsetPercent of the
// scheduled ones, or 0 when there is none; and the most ok calls answered
// in any one window.
func (tl *timeline) onset() (onsetRate, bestOK float64) {
	found := false
	for _, w := range tl.windows() {
		if !found && w.throttled > 0 && w.throttled*100 >= w.scheduled*onsetPercent {
			onsetRate, found = float64(w.scheduled), true
		}
		bestOK = max(bestOK, float64(w.ok))
	}
	return onsetRate, bestOK
}

// floorDiv divides rounding towards minus infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
