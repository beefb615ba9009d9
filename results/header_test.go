package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImpossibleShardHeader: a header whose shard cannot be one of a real
// split (count 0, an index out of range, a count above MaxShards) is
// refused with the file's name, the line and the shard, whether more lines
// follow or not; a possible one is read.
func TestImpossibleShardHeader(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, shard, err string
	}{
		{name: "count 0", shard: `{"index":0,"count":0}`, err: "line 1: header: shard 0/0: the count must be at least 1"},
		{name: "index -1", shard: `{"index":-1,"count":2}`, err: "shard -1/2: the index must be from 0 to 1"},
		{name: "index 5 of 2", shard: `{"index":5,"count":2}`, err: "shard 5/2: the index must be from 0 to 1"},
		{name: "a count beyond the bound", shard: `{"index":0,"count":2147483648}`, err: "shard 0/2147483648: the count must be at most 10000"},
		{name: "the bound itself", shard: `{"index":9999,"count":10000}`},
	} {
		for _, more := range []bool{false, true} {
			name := tt.name
			if more {
				name += " with calls after"
			}
			t.Run(name, func(t *testing.T) {
				body := `{"type":"header","scenario":"s","shard":` + tt.shard + "}\n"
				if more {
					body += `{"type":"call","seq":1,"tool":"x","outcome":"ok"}` + "\n"
				}
				path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".jsonl")
				if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				f, err := Open(path)
				if tt.err == "" {
					if err != nil || f.Header.Shard == nil {
						t.Fatalf("open: %v", err)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), path) {
					t.Fatalf("open: %v, want an error naming %s with %q", err, path, tt.err)
				}
			})
		}
	}
}
