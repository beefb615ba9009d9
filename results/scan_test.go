package results

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestScanStreams: Scan hands over every line in file order, skips the
// types it has no handler for, and stops at a handler's error.
func TestScanStreams(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl.gz")
	want := writeFile(t, path, 25, true)
	t.Run("every line in order", func(t *testing.T) {
		var order []string
		got := &File{}
		torn, err := ScanFile(path, Handler{
			Header: func(h *Header) error { order = append(order, "header"); got.Header = *h; return nil },
			Record: func(r *Record) error {
				order = append(order, "call")
				got.Records = append(got.Records, *r)
				return nil
			},
			Sample: func(s *Sample) error {
				order = append(order, "sample")
				got.Samples = append(got.Samples, *s)
				return nil
			},
			Trailer: func(tr *Trailer) error { order = append(order, "trailer"); c := *tr; got.Trailer = &c; return nil },
		})
		if err != nil || torn {
			t.Fatalf("ScanFile: torn %v, %v", torn, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("scanned:\n%+v\nwant:\n%+v", got, want)
		}
		if order[0] != "header" || order[len(order)-1] != "trailer" || order[10] != "call" || order[11] != "sample" {
			t.Errorf("order %v", order)
		}
	})
	t.Run("records only", func(t *testing.T) {
		n := 0
		if _, err := ScanFile(path, Handler{Record: func(*Record) error { n++; return nil }}); err != nil {
			t.Fatal(err)
		}
		if n != 25 {
			t.Errorf("%d records, want 25", n)
		}
	})
	t.Run("handler error stops", func(t *testing.T) {
		stop := errors.New("enough")
		n := 0
		_, err := ScanFile(path, Handler{Record: func(*Record) error {
			if n++; n == 3 {
				return stop
			}
			return nil
		}})
		if !errors.Is(err, stop) || n != 3 {
			t.Errorf("err %v after %d records; want %v after 3", err, n, stop)
		}
	})
}

func TestScanWantsTheHeaderFirst(t *testing.T) {
	lines := plainLines(t, 2)
	in := string(lines[1]) + string(lines[0]) + string(lines[2])
	_, err := Scan(strings.NewReader(in), Handler{})
	if err == nil || !strings.Contains(err.Error(), "line 1: no header") {
		t.Errorf("Scan = %v, want line 1: no header", err)
	}
}

// TestScanFallsBackToEncodingJSON: a record the fast decoder does not take
// (an escape, a member in another case) still reads as encoding/json reads
// it.
func TestScanFallsBackToEncodingJSON(t *testing.T) {
	lines := plainLines(t, 1)
	in := string(lines[0]) + `{"type":"call","Seq":7,"message":"say \"hi\"\u00e9","outcome":"ok"}` + "\n"
	f, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Records) != 1 || f.Records[0].Seq != 7 || f.Records[0].Message != `say "hi"é` {
		t.Errorf("records %+v", f.Records)
	}
}
