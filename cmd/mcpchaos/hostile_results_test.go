//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileResults: results files and shard flags an adversarial user
// could hand mcpchaos (issue 29, items 4 and 6). The real binary must
// refuse each with exit status 2 and a message naming the file, within
// the hostile-input suite's time and memory bounds.
func TestHostileResults(t *testing.T) {
	exe := bin.Need(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	header := func(shard string) string {
		return `{"type":"header","tool":"mcpchaos","scenario":"s","seed":1,"started":"2026-12-03T12:00:00.123456789Z"` + shard + "}\n" +
			`{"type":"call","seq":0,"tool":"echo","scheduled":"2026-12-03T12:00:00Z","outcome":"ok"}` + "\n"
	}
	whole := write("whole.jsonl", header(""))
	scenario := writeScenario(t, "s.yaml", validHead+"load: {rate: 1/s, duration: 1s}\n")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"a header of 2^31 shards", []string{"report", write("huge.jsonl", header(`,"shard":{"index":0,"count":2147483648}`))},
			"huge.jsonl: line 1: header: shard 0/2147483648: the count must be at most 10000"},
		{"a header of 0 shards", []string{"report", write("zero.jsonl", header(`,"shard":{"index":0,"count":0}`))},
			"zero.jsonl: line 1: header: shard 0/0: the count must be at least 1"},
		{"a header of index -1", []string{"report", write("neg.jsonl", header(`,"shard":{"index":-1,"count":2}`))},
			"neg.jsonl: line 1: header: shard -1/2: the index must be from 0 to 1"},
		{"a header of index 5 of 2", []string{"report", write("five.jsonl", header(`,"shard":{"index":5,"count":2}`))},
			"five.jsonl: line 1: header: shard 5/2: the index must be from 0 to 1"},
		{"the same whole run twice", []string{"report", whole, write("copy.jsonl", header(""))},
			"whole.jsonl and " + filepath.Join(dir, "copy.jsonl") + " are the same run"},
		{"run --shard 0/2^31", []string{"run", "-q", "--shard", "0/2147483648", scenario}, "the count must be at most 10000"},
		{"run --shards 2^31", []string{"run", "-q", "--shards", "2147483648", scenario}, "--shards 2147483648: want at most 10000 shards"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runHostile(t, exe, tt.args, tt.want)
		})
	}
}

// TestMissingShardsAsRanges: a merge of 2 shards of 10,000 names the
// missing ones in a few ranges, not ten thousand numbers.
func TestMissingShardsAsRanges(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, i := range []string{"2", "9999"} {
		p := filepath.Join(dir, "s"+i+".jsonl")
		body := `{"type":"header","tool":"mcpchaos","scenario":"s","seed":1,"started":"2026-12-03T12:00:00Z","shard":{"index":` + i + `,"count":10000}}` + "\n"
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	code, _, stderr := runCLI(t, t.Context(), append([]string{"report", "--format", "json", "-o", filepath.Join(dir, "out.json")}, paths...)...)
	want := "shards 0-1, 3-9998 of 10000 missing"
	if code == 2 || !strings.Contains(stderr, want) || len(stderr) > 2000 {
		t.Errorf("exit code %d, stderr (%d bytes) %.1000s; want a note with %q", code, len(stderr), stderr, want)
	}
}
