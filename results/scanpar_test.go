package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// scanLog is what a scan showed its handler, line by line (as JSON, so a
// reused value is copied), and how it ended.
type scanLog struct {
	lines []string
	torn  bool
	err   string
}

func logScan(t *testing.T, in []byte, workers, chunk int, reuse bool, stopAt int) scanLog {
	t.Helper()
	var l scanLog
	add := func(kind string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		l.lines = append(l.lines, kind+" "+string(b))
		if len(l.lines) == stopAt {
			return errors.New("handler stops")
		}
		return nil
	}
	torn, err := scan(bytes.NewReader(in), Handler{
		Header:  func(h *Header) error { return add("header", h) },
		Record:  func(r *Record) error { return add("call", r) },
		Sample:  func(s *Sample) error { return add("sample", s) },
		Trailer: func(tr *Trailer) error { return add("trailer", tr) },
		Reuse:   reuse,
	}, workers, chunk)
	l.torn = torn
	if err != nil {
		l.err = err.Error()
	}
	return l
}

// TestParallelScanIsSerial: whatever the number of decoders and the size of
// the chunks (down to a chunk shorter than a line), the parallel scan shows
// the handler what the serial scan shows it, and ends the same way: torn
// last lines, a missing last newline, blank lines, a bad line in the middle
// (its number), a line over the limit, a handler's error.
func TestParallelScanIsSerial(t *testing.T) {
	lines := plainLines(t, 60)
	for i, l := range lines {
		if !bytes.HasSuffix(l, []byte("\n")) {
			lines[i] = append(l, '\n')
		}
	}
	whole := append(bytes.Join(lines, nil), `{"type":"trailer","ended":"2026-07-28T12:00:00Z"}`+"\n"...)
	midBad := bytes.Join(append(append(append([][]byte{}, lines[:20]...), []byte("{\"type\":\"call\",\"seq\":\n")), lines[20:]...), nil)
	// A bad line and one more in a chunk that ends the input exactly at
	// 4096 bytes: the chunk after it is empty and the last.
	atEdge := append(append(bytes.Join(lines[:5], nil), "not json\n"...), bytes.TrimSuffix(lines[5], []byte("\n"))...)
	atEdge = append(append(atEdge, bytes.Repeat([]byte(" "), 4095-len(atEdge))...), '\n')
	for _, tt := range []struct {
		name   string
		in     []byte
		stopAt int
	}{
		{"whole file", whole, 0},
		{"torn last line", append(bytes.Join(lines, nil), `{"type":"call","seq":99,"tool":"ec`...), 0},
		{"last line without its newline", bytes.TrimSuffix(whole, []byte("\n")), 0},
		{"blank lines", bytes.ReplaceAll(whole, []byte("\n"), []byte("\n \r\n\n")), 0},
		{"bad line in the middle", midBad, 0},
		{"bad line, then only blank lines", append(bytes.Join(lines[:20], nil), "{\"type\":\"call\",\"seq\":\n \n\n\r\n"...), 0},
		{"bad line, then one more", append(append(bytes.Join(lines[:40], nil), "not json\n"...), lines[40]...), 0},
		{"bad line, then one more, at a chunk's edge", atEdge, 0},
		{"no header", bytes.Join(lines[1:], nil), 0},
		{"empty", nil, 0},
		{"handler stops", whole, 17},
		{"line over the limit", append(bytes.Join(lines[:5], nil), strings.Repeat(" ", maxLine+1)+"{}\n"...), 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := logScan(t, tt.in, 1, chunkSize, false, tt.stopAt)
			if tt.name == "whole file" && (want.err != "" || want.torn || len(want.lines) != 68) {
				t.Fatalf("serial scan of the whole file: %d lines, torn %v, %q", len(want.lines), want.torn, want.err)
			}
			for _, workers := range []int{2, 3, 8} {
				chunks := []int{16, 333, 4096, chunkSize}
				if len(tt.in) > maxLine {
					chunks = chunks[2:] // a slow case: fewer sizes
				}
				for _, chunk := range chunks {
					got := logScan(t, tt.in, workers, chunk, workers == 3, tt.stopAt)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%d workers, %d-byte chunks: %d lines, torn %v, %q; serial: %d lines, torn %v, %q%s",
							workers, chunk, len(got.lines), got.torn, got.err, len(want.lines), want.torn, want.err, firstDiff(got.lines, want.lines))
					}
				}
			}
		})
	}
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("\nline %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	return ""
}

// TestFillStopsAtSize: a chunk whose buffer is larger than the size asked
// for (one kept from an earlier scan) still stops reading at that size, at
// the end of the line it is in, so small chunks in tests are small.
func TestFillStopsAtSize(t *testing.T) {
	in := strings.Repeat("0123456789\n", 1000)
	c := &chunk{buf: make([]byte, 0, 512<<10)}
	c.fill(strings.NewReader(in), 16)
	if len(c.buf) > 32 || c.last {
		t.Fatalf("fill(16) into a 512 KiB buffer read %d bytes (last %v), want at most 32", len(c.buf), c.last)
	}
	long := strings.Repeat("x", 100) + "\n" + in
	c = &chunk{buf: make([]byte, 0, 16)}
	c.fill(strings.NewReader(long), 16)
	if !bytes.Contains(c.buf, []byte("\n")) {
		t.Fatalf("fill(16) of a 101-byte line stopped at %d bytes without a whole line", len(c.buf))
	}
}
