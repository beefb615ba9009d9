package merge

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// shardSet checks the shards of a merge as their headers are read: the
// shards of one run add up to it only when they all split the run the same
// way, each index once, and no whole run is mixed in (its calls would count
// twice), and no whole run is given twice (the same start, seed and
// scenario).
type shardSet struct {
	count   int
	first   string           // the first file read
	whole   string           // a file of a whole run, if any
	runs    map[runID]string // whole run → the file that held it first
	seen    map[int]string   // shard index → file
	startAt time.Time
	skewed  bool
}

// runID tells one whole run from another: two files with the same start
// instant (to the nanosecond), seed and scenario hold the same calls.
type runID struct {
	started  int64
	seed     int64
	scenario string
}

// add takes file path's header; an error refuses the merge, with the
// reason.
func (s *shardSet) add(path string, h *results.Header) error {
	if s.first == "" {
		s.first = path
	}
	sh := h.Shard
	if sh == nil {
		if len(s.seen) > 0 {
			return fmt.Errorf("merge results: %s is a whole run and %s a shard (%d/%d): merged, their calls would count twice",
				path, s.seen[s.any()], s.any(), s.count)
		}
		s.whole = path
		if h.Started.IsZero() {
			return nil // no identity to compare
		}
		id := runID{started: h.Started.UnixNano(), seed: h.Seed, scenario: h.Scenario}
		if other, dup := s.runs[id]; dup {
			return fmt.Errorf("merge results: %s and %s are the same run (scenario %q, seed %d, started %s): its calls would count twice",
				other, path, h.Scenario, h.Seed, h.Started.UTC().Format(time.RFC3339Nano))
		}
		if s.runs == nil {
			s.runs = map[runID]string{}
		}
		s.runs[id] = path
		return nil
	}
	if s.whole != "" {
		return fmt.Errorf("merge results: %s is shard %d/%d and %s a whole run: merged, their calls would count twice",
			path, sh.Index, sh.Count, s.whole)
	}
	if s.seen == nil {
		s.seen, s.count, s.startAt = map[int]string{}, sh.Count, sh.StartAt
	}
	if sh.Count != s.count {
		return fmt.Errorf("merge results: %s is shard %d/%d and %s one of %d shards: a run split two ways",
			path, sh.Index, sh.Count, s.seen[s.any()], s.count)
	}
	if other, dup := s.seen[sh.Index]; dup {
		return fmt.Errorf("merge results: %s and %s are both shard %d/%d: its calls would count twice",
			other, path, sh.Index, sh.Count)
	}
	if !sh.StartAt.Equal(s.startAt) {
		s.skewed = true
	}
	s.seen[sh.Index] = path
	return nil
}

// any is the lowest index seen.
func (s *shardSet) any() int {
	low := -1
	for i := range s.seen {
		if low < 0 || i < low {
			low = i
		}
	}
	return low
}

// notes are what a reader of a shard merge should know.
func (s *shardSet) notes() []string {
	if len(s.seen) == 0 {
		return nil
	}
	var notes []string
	if missing := s.missing(); len(missing) > 0 {
		notes = append(notes, fmt.Sprintf("shards %s of %d missing: the merge holds %d/%d of the run's schedule",
			strings.Join(missing, ", "), s.count, len(s.seen), s.count))
	}
	if s.skewed {
		notes = append(notes, "the shards were given different --start-at times (or none): their seconds do not line up")
	}
	return notes
}

// missing lists the shards not seen, as ranges ("3", "5-9999"): at most
// one entry per shard seen, however large the count.
func (s *shardSet) missing() []string {
	var m []string
	from := -1 // the first missing index of the current range
	for i := 0; i <= s.count; i++ {
		_, seen := s.seen[i]
		if i < s.count && !seen {
			if from < 0 {
				from = i
			}
			continue
		}
		switch {
		case from < 0:
		case from == i-1:
			m = append(m, strconv.Itoa(from))
		default:
			m = append(m, strconv.Itoa(from)+"-"+strconv.Itoa(i-1))
		}
		from = -1
	}
	return m
}
