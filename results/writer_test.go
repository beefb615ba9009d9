package results

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestWriterFlushesWhileOpen: a results file is readable while the run is
// still writing it (and so after a crash), thanks to the periodic flush.
func TestWriterFlushesWhileOpen(t *testing.T) {
	for _, name := range []string{"live.jsonl", "live.jsonl.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			w, err := Create(path, 10*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			h := testHeader()
			r := testRecord(1)
			if err := w.Write(&h); err != nil {
				t.Fatal(err)
			}
			if err := w.Write(&r); err != nil {
				t.Fatal(err)
			}
			var f *File
			testutil.Eventually(t, "the written lines to become readable", func() bool {
				f, err = Open(path)
				return err == nil && len(f.Records) == 1
			})
			if !reflect.DeepEqual(f.Records[0], r) {
				t.Errorf("record %+v, want %+v", f.Records[0], r)
			}
			if f.Trailer != nil {
				t.Error("trailer before it was written")
			}
		})
	}
}

func TestWriteErrorSticks(t *testing.T) {
	w, err := Create(filepath.Join(t.TempDir(), "r.jsonl"), 0)
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string]any{"x": func() {}}
	if err := w.Write(bad); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("Write(func) = %v, want an error naming line 1", err)
	}
	h := testHeader()
	if err := w.Write(&h); err == nil {
		t.Error("Write after a failed Write succeeded")
	}
	if err := w.Close(); err == nil {
		t.Error("Close after a failed Write returned nil")
	}
}
