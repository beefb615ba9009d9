package results

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestTornLastLine(t *testing.T) {
	lines := plainLines(t, 5) // header + 5 records
	last := lines[len(lines)-1]
	for _, tt := range []struct {
		name    string
		last    []byte
		records int
		torn    bool
	}{
		{"cut mid-JSON", last[:len(last)/2], 4, true},
		{"cut after one byte", last[:1], 4, true},
		{"complete, no newline", last, 5, false},
		{"complete with newline", append(append([]byte(nil), last...), '\n'), 5, false},
		{"cut, then blank", append(append([]byte(nil), last[:10]...), ' '), 4, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			for _, l := range lines[:len(lines)-1] {
				buf.Write(l)
			}
			buf.Write(tt.last)
			path := filepath.Join(t.TempDir(), "torn.jsonl")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if f.Torn != tt.torn {
				t.Errorf("Torn = %v, want %v", f.Torn, tt.torn)
			}
			if len(f.Records) != tt.records {
				t.Fatalf("%d records, want %d", len(f.Records), tt.records)
			}
			for i, r := range f.Records {
				if want := testRecord(i); !reflect.DeepEqual(r, want) {
					t.Errorf("record %d:\n%+v\nwant:\n%+v", i, r, want)
				}
			}
			if !reflect.DeepEqual(f.Header, testHeader()) {
				t.Errorf("header %+v", f.Header)
			}
		})
	}
}

// TestGzipCutShort simulates a crash while writing a compressed file:
// only part of the compressed bytes reach the disk. What was written
// before the cut must still read, and the file reads as torn.
func TestGzipCutShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl.gz")
	const n = 1000
	writeFile(t, path, n, true)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, frac := range []float64{0.2, 0.5, 0.9} {
		t.Run(fmt.Sprint(frac), func(t *testing.T) {
			cut := filepath.Join(t.TempDir(), "cut.jsonl.gz")
			if err := os.WriteFile(cut, full[:int(float64(len(full))*frac)], 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(cut)
			if err != nil {
				t.Fatal(err)
			}
			if !f.Torn {
				t.Error("Torn = false for a cut compressed stream")
			}
			if f.Trailer != nil {
				t.Error("a cut file has a trailer")
			}
			if f.Header.Scenario != "unit" || f.Header.Seed != 42 {
				t.Errorf("header %+v", f.Header)
			}
			if len(f.Records) == 0 || len(f.Records) >= n {
				t.Fatalf("%d records from %.1f%% of the stream, want some but not all %d", len(f.Records), frac*100, n)
			}
			for i, r := range f.Records {
				if want := testRecord(i); !reflect.DeepEqual(r, want) {
					t.Fatalf("record %d:\n%+v\nwant:\n%+v", i, r, want)
				}
			}
		})
	}
	t.Run("footer cut", func(t *testing.T) {
		// Only the gzip trailer (CRC and size) is missing: every line is
		// there, and the stream still reads as cut.
		cut := filepath.Join(t.TempDir(), "cut.jsonl.gz")
		if err := os.WriteFile(cut, full[:len(full)-4], 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(cut)
		if err != nil {
			t.Fatal(err)
		}
		if !f.Torn || len(f.Records) != n || f.Trailer == nil {
			t.Errorf("Torn %v, %d records, trailer %v; want torn, %d records and the trailer", f.Torn, len(f.Records), f.Trailer, n)
		}
	})
}
