package probes

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
)

// The names of the capture groups a log probe's done regexp may use to
// name the call a completion line is about: GroupID holds the JSON-RPC
// request id as the client sent it (17, or "17" quoted), GroupToken the
// progress token ("p17"; mcpchaos makes every token from its call's id).
// A done regexp needs at least one of them.
const (
	GroupID    = "id"
	GroupToken = "token"
)

// Bounds of a log probe.
const (
	// MaxLogLine is the longest line a log probe matches; the rest of a
	// longer line is dropped unread.
	MaxLogLine = 4 << 10
	// MaxLogPoll is the most a log file probe reads in one poll, so a
	// server that floods its log cannot take all memory or time.
	MaxLogPoll = 1 << 20
	// MaxLogWaiting bounds the cancelled calls a log probe waits for; later
	// cancels are not tracked (LogResult.Untracked).
	MaxLogWaiting = 1 << 20
	// MaxLogRecent bounds the completion lines kept for calls not (yet)
	// cancelled, for a cancel that races its call's last line.
	MaxLogRecent = 1 << 16
	// MaxLogIDs bounds LogResult.OrphanedIDs.
	MaxLogIDs = 100
)

// Done matches the completion lines of a log and says which call each
// names.
type Done struct {
	re         *regexp.Regexp
	id, token  int // submatch indexes, -1 when absent
	expression string
}

// ParseDone compiles a done regexp (Go syntax). It must have a named
// group GroupID or GroupToken.
func ParseDone(expr string) (*Done, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %w", expr, err)
	}
	d := &Done{re: re, id: re.SubexpIndex(GroupID), token: re.SubexpIndex(GroupToken), expression: expr}
	if d.id < 0 && d.token < 0 {
		return nil, fmt.Errorf("regular expression %q has no group (?P<%s>...) or (?P<%s>...) naming the call", expr, GroupID, GroupToken)
	}
	return d, nil
}

// String returns the regexp as written.
func (d *Done) String() string { return d.expression }

// ID returns the request id named by line, when line matches. When both
// groups are present the id group wins.
func (d *Done) ID(line []byte) (int64, bool) {
	m := d.re.FindSubmatchIndex(line)
	if m == nil {
		return 0, false
	}
	if d.id >= 0 && m[2*d.id] >= 0 {
		return parseID(line[m[2*d.id]:m[2*d.id+1]])
	}
	if d.token >= 0 && m[2*d.token] >= 0 {
		return client.TokenID(string(unquote(line[m[2*d.token]:m[2*d.token+1]])))
	}
	return 0, false
}

// parseID reads a positive decimal request id, quoted or not.
func parseID(b []byte) (int64, bool) {
	b = unquote(b)
	if len(b) == 0 || b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

func unquote(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		return b[1 : len(b)-1]
	}
	return b
}

// LogResult is what a log probe found.
type LogResult struct {
	// Lines is how many lines were read.
	Lines int
	// Matched: cancelled calls whose completion line was seen.
	Matched int
	// Orphaned: of those, the calls whose line came later than their
	// cancel plus the grace.
	Orphaned int
	// OrphanedIDs are the request ids of the first MaxLogIDs orphans, in
	// increasing order.
	OrphanedIDs []int64
	// MaxAfterCancel is the longest time from a cancel to its call's
	// completion line, over the orphans.
	MaxAfterCancel time.Duration
	// Unseen: cancelled calls whose completion line was not seen (still
	// running, or ended without a line the regexp matches).
	Unseen int
	// Untracked: cancels beyond MaxLogWaiting, not judged.
	Untracked int
}

// LogJudge judges cancelled calls by the completion lines of a log: a
// call cancelled at c whose line is read later than c + grace ran on after
// its cancel. It keeps only the calls that were cancelled and have not
// logged their end yet (at most MaxLogWaiting), and the most recent
// completion lines of other calls (at most MaxLogRecent). Safe for
// concurrent use.
type LogJudge struct {
	done  *Done
	grace time.Duration

	mu      sync.Mutex
	waiting map[int64]time.Time // cancelled calls with no line yet: id → cancel time
	recent  map[int64]time.Time // lines of calls not cancelled when read: id → read time
	ring    []int64             // recent's ids, oldest first from next
	next    int
	res     LogResult
}

// NewLogJudge returns a judge matching lines with done.
func NewLogJudge(done *Done, grace time.Duration) *LogJudge {
	return &LogJudge{done: done, grace: grace, waiting: map[int64]time.Time{}, recent: map[int64]time.Time{}}
}

// Cancelled notes that call id was cancelled (or cut) at at.
func (j *LogJudge) Cancelled(id int64, at time.Time) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if t, ok := j.recent[id]; ok { // its line came first: it ended about when we cancelled
		delete(j.recent, id)
		j.judge(id, at, t)
		return
	}
	if _, ok := j.waiting[id]; ok {
		return
	}
	if len(j.waiting) >= MaxLogWaiting {
		j.res.Untracked++
		return
	}
	j.waiting[id] = at
}

// Line judges one log line, read (or first seen in the file) at at.
func (j *LogJudge) Line(line []byte, at time.Time) {
	id, ok := j.done.ID(line)
	j.mu.Lock()
	defer j.mu.Unlock()
	j.res.Lines++
	if !ok {
		return
	}
	if c, ok := j.waiting[id]; ok {
		delete(j.waiting, id)
		j.judge(id, c, at)
		return
	}
	if _, ok := j.recent[id]; ok {
		return
	}
	if len(j.ring) < MaxLogRecent {
		j.ring = append(j.ring, id)
	} else {
		delete(j.recent, j.ring[j.next])
		j.ring[j.next] = id
		j.next = (j.next + 1) % len(j.ring)
	}
	j.recent[id] = at
}

// judge scores a cancelled call whose line was seen; j.mu is held.
func (j *LogJudge) judge(id int64, cancelled, line time.Time) {
	j.res.Matched++
	after := line.Sub(cancelled)
	if after <= j.grace {
		return
	}
	j.res.Orphaned++
	j.res.MaxAfterCancel = max(j.res.MaxAfterCancel, after)
	if len(j.res.OrphanedIDs) < MaxLogIDs {
		j.res.OrphanedIDs = append(j.res.OrphanedIDs, id)
	}
}

// Unseen returns how many cancelled calls have not logged their end yet.
func (j *LogJudge) Unseen() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.waiting)
}

// Result returns what the judge found so far.
func (j *LogJudge) Result() LogResult {
	j.mu.Lock()
	defer j.mu.Unlock()
	r := j.res
	r.OrphanedIDs = slices.Clone(r.OrphanedIDs)
	slices.Sort(r.OrphanedIDs)
	r.Unseen = len(j.waiting)
	return r
}

// Writer returns a writer that splits what is written to it into lines
// and judges each when it is written: the stderr of one stdio server
// process (give each process its own). It never blocks or fails.
func (j *LogJudge) Writer() *LineWriter {
	return &LineWriter{Emit: func(line []byte, _ int64) { j.Line(line, time.Now()) }}
}

// LineWriter splits a byte stream into lines without their "\n" (and a
// "\r" before it) and hands each to Emit, with the stream offset just past
// its newline. A line longer than MaxLogLine is cut to that length; memory
// stays bounded whatever is written. A last line without a newline is
// never emitted.
type LineWriter struct {
	Emit func(line []byte, end int64)

	buf     []byte
	cutting bool
	pos     int64 // bytes consumed
}

// Write splits p; it always consumes all of it.
func (w *LineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !w.cutting {
			if room := MaxLogLine - len(w.buf); len(chunk) > room {
				w.buf = append(w.buf, chunk[:room]...)
				w.cutting = true
			} else {
				w.buf = append(w.buf, chunk...)
			}
		}
		if i < 0 {
			w.pos += int64(len(p))
			break
		}
		w.pos += int64(i + 1)
		w.Emit(bytes.TrimSuffix(w.buf, []byte("\r")), w.pos)
		w.buf, w.cutting = w.buf[:0], false
		p = p[i+1:]
	}
	return n, nil
}

// reset forgets a partial line and restarts the offset at pos.
func (w *LineWriter) reset(pos int64) {
	w.buf, w.cutting, w.pos = w.buf[:0], false, pos
}
