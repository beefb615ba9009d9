package report

import (
	"slices"
	"strconv"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// The throttling onset and the best ok rate are measured in one-second
// windows aligned to the first scheduled call. Records arrive in completion
// order, so the first scheduled call may be seen late; the timeline
// therefore counts calls in 10 ms slots of absolute time and groups the
// slots into windows only when asked. A window edge is thus exact to 10 ms,
// and the result does not depend on the order of records.
//
// The slots of one absolute second are a chunk. Chunks a record touched
// lately are kept as they are (12 bytes a slot); every sweepEvery records
// the ones no record touched since the last sweep are packed
// (timelinepack.go, about 44 bytes for a second of a 300 calls/s soak), so
// a long run's memory grows by its packed seconds only. A record that
// lands in a packed chunk unpacks it first: packing loses no count, so
// where and when a chunk was packed changes no result.
const (
	slotNs         = int64(10 * time.Millisecond)
	slotsPerWindow = int64(time.Second) / slotNs
	// onsetPercent: throttled calls at least this share of a window's
	// scheduled calls mark the onset.
	onsetPercent = 1
	// defaultSweepEvery: records between sweeps, about 14 seconds of a
	// 300 calls/s run; a sweep waits for four records a live chunk, so it
	// costs little even when records come in no order at all.
	defaultSweepEvery = 4096
	// spareChunks: unpacked chunks kept for reuse.
	spareChunks = 4
)

// slot counts the calls of one 10 ms slot.
type slot struct {
	scheduled int32 // calls scheduled in the slot, dropped ones included
	throttled int32 // throttled calls scheduled in the slot
	ok        int32 // ok calls answered in the slot
}

// chunk is the 100 slots of one absolute second.
type chunk [slotsPerWindow]slot

// liveChunk is a chunk kept as it is, and the sweep it was last touched in.
type liveChunk struct {
	slots   chunk
	touched uint32
}

// timeline counts scheduled, throttled and ok calls over time.
type timeline struct {
	live   map[int64]*liveChunk // by floor(unix ns / 1 s)
	packed map[int64]string     // the other chunks, packed
	first  time.Time            // the earliest scheduled call; zero when empty

	sweepEvery int    // records between sweeps; 0 is defaultSweepEvery
	adds       int    // records since the last sweep
	sweep      uint32 // sweeps so far
	spare      []*liveChunk
	scratch    []byte // packChunk's buffer
	unpacked   int    // chunks unpacked again by a late record
}

// slotAt returns the slot holding time t, creating or unpacking its chunk.
func (tl *timeline) slotAt(t time.Time) *slot {
	n := floorDiv(t.UnixNano(), slotNs)
	c := floorDiv(n, slotsPerWindow)
	ch := tl.live[c]
	if ch == nil {
		ch = tl.liveChunk(c)
	}
	ch.touched = tl.sweep
	return &ch.slots[n-c*slotsPerWindow]
}

// liveChunk makes chunk c live: a spare or new chunk, holding c's counts
// when c was packed.
func (tl *timeline) liveChunk(c int64) *liveChunk {
	if tl.live == nil {
		tl.live = make(map[int64]*liveChunk)
	}
	var ch *liveChunk
	if k := len(tl.spare); k > 0 {
		ch, tl.spare = tl.spare[k-1], tl.spare[:k-1]
		ch.slots = chunk{}
	} else {
		ch = new(liveChunk)
	}
	if p, ok := tl.packed[c]; ok {
		mustUnpack(&ch.slots, c, p)
		delete(tl.packed, c)
		tl.unpacked++
	}
	tl.live[c] = ch
	return ch
}

// mustUnpack unpacks chunk k, packed by packChunk: a failure is a bug
// here, not bad input (FuzzChunkPack holds packChunk and unpackChunk to
// each other).
func mustUnpack(dst *chunk, k int64, p string) {
	if err := unpackChunk(dst, p); err != nil {
		panic("report: timeline: chunk " + strconv.FormatInt(k, 10) + " does not unpack: " + err.Error())
	}
}

// sweepIfDue packs the chunks no record touched since the last sweep, once
// sweepEvery records and four a live chunk have come since.
func (tl *timeline) sweepIfDue() {
	tl.adds++
	every := tl.sweepEvery
	if every <= 0 {
		every = defaultSweepEvery
	}
	if tl.adds < every || tl.adds < 4*len(tl.live) {
		return
	}
	for c, ch := range tl.live {
		if ch.touched == tl.sweep {
			continue
		}
		tl.scratch = packChunk(tl.scratch[:0], &ch.slots)
		if tl.packed == nil {
			tl.packed = make(map[int64]string)
		}
		tl.packed[c] = string(tl.scratch)
		delete(tl.live, c)
		if len(tl.spare) < spareChunks {
			tl.spare = append(tl.spare, ch)
		}
	}
	tl.adds = 0
	tl.sweep++
}

// add counts one call.
func (tl *timeline) add(r *results.Record) {
	if r.Scheduled.IsZero() {
		return
	}
	defer tl.sweepIfDue()
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
	keys := make([]int64, 0, len(tl.live)+len(tl.packed))
	for k := range tl.live {
		keys = append(keys, k)
	}
	for k := range tl.packed {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []window
	var unpacked chunk
	for _, k := range keys {
		ch := &unpacked
		if lc := tl.live[k]; lc != nil {
			ch = &lc.slots
		} else {
			mustUnpack(ch, k, tl.packed[k])
		}
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
