package probes

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseDone(t *testing.T) {
	tests := []struct {
		name, expr, line string
		want             int64
		ok               bool
		err              string
	}{
		{name: "id", expr: `call (?P<id>\d+) done`, line: "call 17 done", want: 17, ok: true},
		{name: "quoted id", expr: `"id":(?P<id>"?\d+"?).*finished`, line: `{"id":"42","msg":"finished"}`, want: 42, ok: true},
		{name: "token", expr: `token=(?P<token>\S+) end`, line: "token=p9 end", want: 9, ok: true},
		{name: "foreign token", expr: `token=(?P<token>\S+) end`, line: "token=abc end", ok: false},
		{name: "no match", expr: `call (?P<id>\d+) done`, line: "call 17 started"},
		{name: "zero id", expr: `call (?P<id>\d+) done`, line: "call 0 done"},
		{name: "huge id", expr: `call (?P<id>\d+) done`, line: "call 99999999999999999999 done"},
		{name: "id wins over token", expr: `(?P<id>\d+) (?P<token>p\d+)`, line: "5 p6", want: 5, ok: true},
		{name: "token when id did not take part", expr: `(?:id=(?P<id>\d+)|tok=(?P<token>p\d+))`, line: "tok=p6", want: 6, ok: true},
		{name: "no group", expr: `call \d+ done`, err: "has no group (?P<id>...) or (?P<token>...)"},
		{name: "other group", expr: `call (?P<req>\d+) done`, err: "has no group"},
		{name: "bad syntax", expr: `call (\d+ done`, err: "invalid regular expression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDone(tt.expr)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseDone(%q) error = %v, want %q", tt.expr, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, ok := d.ID([]byte(tt.line))
			if got != tt.want || ok != tt.ok {
				t.Errorf("ID(%q) = %d, %v; want %d, %v", tt.line, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func mustDone(t testing.TB, expr string) *Done {
	t.Helper()
	d, err := ParseDone(expr)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLogJudge(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	j := NewLogJudge(mustDone(t, `call (?P<id>\d+) (done|cancelled)`), 2*time.Second)
	j.Line([]byte("call 1 done"), at(0)) // never cancelled
	j.Cancelled(2, at(100))
	j.Line([]byte("call 2 cancelled"), at(150)) // stopped in time
	j.Cancelled(3, at(100))
	j.Line([]byte("call 3 done"), at(5100)) // ran on for 5 s
	j.Line([]byte("call 4 done"), at(200))  // its line raced the cancel
	j.Cancelled(4, at(210))
	j.Cancelled(5, at(300)) // never logs
	j.Line([]byte("noise"), at(400))
	j.Line([]byte("call 6 done"), at(9000)) // read before its cancel registered, late
	j.Cancelled(6, at(1000))
	got := j.Result()
	want := LogResult{Lines: 6, Matched: 4, Orphaned: 2, OrphanedIDs: []int64{3, 6}, MaxAfterCancel: 8 * time.Second, Unseen: 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Result() = %+v\nwant       %+v", got, want)
	}
}

func TestLogJudgeBounds(t *testing.T) {
	j := NewLogJudge(mustDone(t, `(?P<id>\d+)`), 0)
	now := time.Now()
	for i := range int64(MaxLogRecent + 10) {
		j.Line([]byte(fmt.Sprint(i+1)), now)
	}
	if len(j.recent) != MaxLogRecent || len(j.ring) != MaxLogRecent {
		t.Errorf("recent holds %d (ring %d), want at most %d", len(j.recent), len(j.ring), MaxLogRecent)
	}
	for i := range int64(MaxLogIDs + 5) {
		id := int64(1<<40) + i
		j.Cancelled(id, now)
		j.Line([]byte(fmt.Sprint(id)), now.Add(time.Second))
	}
	r := j.Result()
	if r.Orphaned != MaxLogIDs+5 || len(r.OrphanedIDs) != MaxLogIDs {
		t.Errorf("orphaned %d with %d ids, want %d with %d", r.Orphaned, len(r.OrphanedIDs), MaxLogIDs+5, MaxLogIDs)
	}
}

func TestLineWriter(t *testing.T) {
	var got []string
	var ends []int64
	w := &LineWriter{Emit: func(line []byte, end int64) {
		got = append(got, string(line))
		ends = append(ends, end)
	}}
	long := strings.Repeat("x", MaxLogLine+100)
	for _, chunk := range []string{"a\r\nb", "c\n", long[:10], long[10:] + "\nlast", "\n", "partial"} {
		w.Write([]byte(chunk))
	}
	want := []string{"a", "bc", long[:MaxLogLine], "last"}
	if !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
	wantEnds := []int64{3, 6, int64(6 + len(long) + 1), int64(6 + len(long) + 6)}
	if !slices.Equal(ends, wantEnds) {
		t.Errorf("ends %v, want %v", ends, wantEnds)
	}
	if cap(w.buf) > 2*MaxLogLine {
		t.Errorf("buffer grew to %d", cap(w.buf))
	}
}

// tail is a LogFile over a temporary file, with the lines it read.
type tail struct {
	t     *testing.T
	path  string
	lf    *LogFile
	lines []string
}

func newTail(t *testing.T) *tail {
	tl := &tail{t: t, path: filepath.Join(t.TempDir(), "server.log")}
	tl.lf = NewLogFile(tl.path, func(line []byte, _ time.Time) { tl.lines = append(tl.lines, string(line)) })
	t.Cleanup(func() { tl.lf.Close() })
	return tl
}

func (tl *tail) write(s string) {
	tl.t.Helper()
	f, err := os.OpenFile(tl.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		tl.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		tl.t.Fatal(err)
	}
}

func (tl *tail) poll(want ...string) {
	tl.t.Helper()
	tl.lines = nil
	if err := tl.lf.Poll(time.Now()); err != nil {
		tl.t.Fatal(err)
	}
	if !slices.Equal(tl.lines, want) {
		tl.t.Errorf("poll read %q, want %q", tl.lines, want)
	}
}

func TestLogFileRotation(t *testing.T) {
	tl := newTail(t)
	tl.write("call 1 done\n") // an earlier run's line
	if err := tl.lf.Start(); err != nil {
		t.Fatal(err)
	}
	tl.poll()
	tl.write("call 2 done\ncall 3 ")
	tl.poll("call 2 done")
	// logrotate: rename, the server writes on to the old file, then opens a new one.
	if err := os.Rename(tl.path, tl.path+".1"); err != nil {
		t.Fatal(err)
	}
	old, err := os.OpenFile(tl.path+".1", os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	old.WriteString("done\n")
	tl.poll("call 3 done") // no new file yet: the old one is read on
	old.WriteString("call 4 done\n")
	old.Close()
	tl.write("call 5 done\n")
	tl.poll("call 4 done", "call 5 done") // the old file to its end, then the new one
	tl.write("call 6 done\n")
	tl.poll("call 6 done")
}

func TestLogFileTruncation(t *testing.T) {
	tl := newTail(t)
	if err := tl.lf.Start(); err != nil { // no file yet
		t.Fatal(err)
	}
	tl.poll()
	tl.write("call 1 done\ncall 2 done\n")
	tl.poll("call 1 done", "call 2 done")
	// copytruncate: the same file, cut to zero and written again.
	if err := os.Truncate(tl.path, 0); err != nil {
		t.Fatal(err)
	}
	tl.write("call 3 done\n")
	tl.poll("call 3 done")
	if err := os.Remove(tl.path); err != nil {
		t.Fatal(err)
	}
	tl.poll()
	tl.write("call 4 done\n")
	tl.poll("call 4 done")
}

func TestLogFileBoundedPoll(t *testing.T) {
	tl := newTail(t)
	if err := tl.lf.Start(); err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("y", 99) + "\n"
	tl.write(strings.Repeat(line, 3*MaxLogPoll/len(line)))
	var times []time.Time
	tl.lf.emit = func(_ []byte, at time.Time) { times = append(times, at) }
	t0 := time.Unix(1000, 0)
	var counts []int
	for i := range 4 {
		times = nil
		if err := tl.lf.Poll(t0.Add(time.Duration(i) * time.Second)); err != nil {
			t.Fatal(err)
		}
		counts = append(counts, len(times))
		for _, at := range times {
			if !at.Equal(t0) {
				t.Fatalf("poll %d: a line got time %v, want the first poll's %v (when it was first seen)", i, at, t0)
			}
		}
	}
	if n := MaxLogPoll / len(line); counts[0] < n-1 || counts[0] > n+1 || counts[3] != 0 {
		t.Errorf("lines per poll %v, want about %d per poll and nothing left for the fourth", counts, n)
	}
}

// FuzzLogLine feeds arbitrary log bytes through the line splitter and a
// done regexp: no panic, no line longer than MaxLogLine, ids positive.
func FuzzLogLine(f *testing.F) {
	f.Add([]byte("call 17 done\ncall 18 cancelled\n"), `call (?P<id>\d+) done`)
	f.Add([]byte("token=p5 end\r\n"), `token=(?P<token>\S+)`)
	f.Add([]byte("\"id\":\"9\"\n\x00\xff\n"), `"id":(?P<id>"?\d+"?)`)
	f.Fuzz(func(t *testing.T, data []byte, expr string) {
		d, err := ParseDone(expr)
		if err != nil {
			return
		}
		j := NewLogJudge(d, time.Second)
		w := j.Writer()
		w.Emit = func(line []byte, _ int64) {
			if len(line) > MaxLogLine {
				t.Fatalf("line of %d bytes", len(line))
			}
			if id, ok := d.ID(line); ok && id <= 0 {
				t.Fatalf("id %d from %q", id, line)
			}
			j.Line(line, time.Now())
		}
		for len(data) > 0 {
			n := min(len(data), 7)
			w.Write(data[:n])
			data = data[n:]
		}
		if r := j.Result(); r.Matched != 0 || r.Unseen != 0 {
			t.Fatalf("nothing was cancelled, yet %+v", r)
		}
	})
}
