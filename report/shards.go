package report

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
// twice).
type shardSet struct {
	count   int
	first   string         // the first file read
	whole   string         // a file of a whole run, if any
	seen    map[int]string // shard index → file
	startAt time.Time
	skewed  bool
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

func (s *shardSet) missing() []string {
	var m []string
	for i := range s.count {
		if _, ok := s.seen[i]; !ok {
			m = append(m, strconv.Itoa(i))
		}
	}
	return m
}
