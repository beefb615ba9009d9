package probes

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// LogFile tails a log file for a log probe, poll by poll, and survives
// rotation and truncation:
//
//   - rename and a new file (logrotate's default, or a server reopening its
//     log): the old file is read to its end, then the new one from its
//     start;
//   - truncation in place (copytruncate, "> file"): a size below what was
//     read restarts from the start. (A file truncated and rewritten past
//     the old size between two polls is not noticed.)
//
// A file that does not exist yet is not an error: it is read from its
// start once it appears.
//
// The time of a line is the poll at which the file's size first covered
// it: when mcpchaos first saw it, not when it got round to reading it, so
// a backlog (at most MaxLogPoll bytes are read per poll) does not make
// lines late. Its resolution is the poll period.
type LogFile struct {
	path string
	emit func(line []byte, at time.Time)

	f     *os.File
	off   int64 // bytes of f read
	lines LineWriter
	marks []sizeMark // sizes of f seen at polls, increasing
	buf   []byte
}

// sizeMark is f's size at one poll.
type sizeMark struct {
	size int64
	t    time.Time
}

// maxMarks bounds the size marks kept while reading lags behind.
const maxMarks = 4096

// NewLogFile returns a tail of path that hands each line to emit, with its
// time.
func NewLogFile(path string, emit func(line []byte, at time.Time)) *LogFile {
	t := &LogFile{path: path, emit: emit}
	t.lines.Emit = t.line
	return t
}

// Path returns the file's path.
func (t *LogFile) Path() string { return t.path }

// Start skips what the file holds now (an earlier run's lines), so that
// only lines written from now on are read.
func (t *LogFile) Start() error {
	f, err := os.Open(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open log: %w", err)
	}
	t.use(f, fi.Size())
	return nil
}

// use switches to f, read from off.
func (t *LogFile) use(f *os.File, off int64) {
	if t.f != nil && t.f != f {
		t.f.Close()
	}
	t.f, t.off, t.marks = f, off, t.marks[:0]
	t.lines.reset(off)
}

// Poll reads what was written since the last poll, at most MaxLogPoll
// bytes, and emits every complete line.
func (t *LogFile) Poll(now time.Time) error {
	budget := int64(MaxLogPoll)
	named, statErr := os.Stat(t.path)
	if statErr != nil && !errors.Is(statErr, fs.ErrNotExist) {
		return fmt.Errorf("read log: %w", statErr)
	}
	if t.f != nil {
		cur, err := t.f.Stat()
		if err != nil {
			return fmt.Errorf("read log: %w", err)
		}
		if statErr == nil && !os.SameFile(cur, named) {
			// Rotated: finish the old file first.
			n, err := t.read(cur.Size(), now, budget)
			if err != nil {
				return err
			}
			budget -= n
			if t.off < cur.Size() {
				return nil // more of the old file next time
			}
			t.f.Close()
			t.f = nil
		} else {
			if cur.Size() < t.off { // truncated in place
				t.use(t.f, 0)
			}
			_, err := t.read(cur.Size(), now, budget)
			return err
		}
	}
	if statErr != nil || budget <= 0 {
		return nil // not there (yet), or no budget left this time
	}
	f, err := os.Open(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	t.use(f, 0)
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read log: %w", err)
	}
	_, err = t.read(fi.Size(), now, budget)
	return err
}

// read reads f from t.off up to size (at most budget bytes) and returns
// how much it read.
func (t *LogFile) read(size int64, now time.Time, budget int64) (int64, error) {
	if size <= t.off || budget <= 0 {
		return 0, nil
	}
	if len(t.marks) == 0 || size > t.marks[len(t.marks)-1].size {
		if len(t.marks) == maxMarks {
			t.marks = append(t.marks[:0], t.marks[1:]...) // the oldest goes; its lines get a later time
		}
		t.marks = append(t.marks, sizeMark{size, now})
	}
	want := min(size-t.off, budget)
	if cap(t.buf) < 64<<10 {
		t.buf = make([]byte, 64<<10)
	}
	var total int64
	for total < want {
		chunk := t.buf[:min(int64(len(t.buf)), want-total)]
		n, err := t.f.ReadAt(chunk, t.off)
		if n > 0 {
			t.off += int64(n)
			total += int64(n)
			t.lines.Write(chunk[:n])
		}
		if errors.Is(err, io.EOF) || (err == nil && n == 0) {
			break // shrank while we read; the next poll sees it
		}
		if err != nil {
			return total, fmt.Errorf("read log: %w", err)
		}
	}
	return total, nil
}

// line emits a line with the time of the first mark that covers its end.
func (t *LogFile) line(b []byte, end int64) {
	at := time.Time{}
	for len(t.marks) > 0 {
		if t.marks[0].size >= end {
			at = t.marks[0].t
			break
		}
		t.marks = t.marks[1:]
	}
	if at.IsZero() {
		at = time.Now()
	}
	t.emit(b, at)
}

// Close closes the file.
func (t *LogFile) Close() error {
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	return err
}
