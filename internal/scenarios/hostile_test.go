//go:build unix

package scenarios

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// allocated returns the bytes f allocates: a bound on the memory it
// costs that does not depend on how busy the machine is.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// blockMaps nests n block mappings, one more space each line.
func blockMaps(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i))
		b.WriteString("a:\n")
	}
	return b.String()
}

// TestHostileYAML: files built to make the YAML library's memory grow
// faster than the file fail early, at the place that passes the bound,
// and cost little memory. (Before the bounds, the first cost more than
// 4 GB.)
func TestHostileYAML(t *testing.T) {
	const budget = 48 << 20
	longKey := strings.Repeat("k", 10_000)
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"deep flow sequences", strings.Repeat("[", 500_000) + strings.Repeat("]", 500_000),
			"x.yaml:1:100000: more than 100000 YAML tokens (keys, values and punctuation), the most a scenario may hold"},
		{"deep flow sequences under the token bound", "a: " + strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000),
			"x.yaml:1:103: nested deeper than 100 levels"},
		{"deep flow mappings", "a: " + strings.Repeat("{a: ", 20_000) + "1" + strings.Repeat("}", 20_000),
			"x.yaml:1:400: nested deeper than 100 levels"},
		{"deep block mappings", blockMaps(1400),
			"x.yaml:101:102: nested deeper than 100 levels"},
		{"deep block sequences", strings.Repeat("- ", 20_000) + "x\n",
			"x.yaml:1:201: nested deeper than 100 levels"},
		{"deep mixed", strings.Repeat("- a: ", 10_000) + "x\n",
			"x.yaml:1:251: nested deeper than 100 levels"},
		{"wide flow sequence", "a: [" + strings.Repeat("a,", 500_000) + "]",
			"x.yaml:1:199998: more than 100000 YAML tokens (keys, values and punctuation), the most a scenario may hold"},
		{"comments", strings.Repeat("#\n", 500_000),
			"x.yaml:50000:2: more than 100000 YAML tokens (keys, values and punctuation), the most a scenario may hold"},
		{"long key above many values", longKey + ": [" + strings.Repeat("a,", 20_000) + "]",
			"x.yaml:1:11677: long keys above many values: the YAML parser would keep more than 16MiB of key paths (every value holds the keys above it); shorten the keys"},
		{"long key above many block values", longKey + ":\n" + strings.Repeat("- a\n", 20_000),
			"x.yaml:839:1: long keys above many values: the YAML parser would keep more than 16MiB of key paths (every value holds the keys above it); shorten the keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			cost := allocated(func() { _, err = parse("x.yaml", []byte(tt.src), testEnv) })
			if err == nil || err.Error() != tt.want {
				t.Errorf("error:\n%.300v\nwant:\n%s", err, tt.want)
			}
			if cost > budget {
				t.Errorf("parsing a %d-byte file allocated %d MiB, want at most %d MiB", len(tt.src), cost>>20, budget>>20)
			}
		})
	}
}

// TestNestingWithinBounds: what real files hold passes the bounds: 60
// levels of arguments, 40 deep in block style, long strings and keys.
func TestNestingWithinBounds(t *testing.T) {
	deep := "{a: " + strings.Repeat("[", 60) + strings.Repeat("]", 60) + "}"
	var block strings.Builder
	for i := range 40 {
		block.WriteString(strings.Repeat("  ", i+3) + "k" + strings.Repeat("x", 200) + ":\n")
	}
	block.WriteString(strings.Repeat("  ", 43) + "v: 1\n")
	src := lines("target: {builtin: {}}", "load: {rate: 1/s, duration: 1s}",
		"calls:", "  - tool: a", "    arguments: "+deep,
		"  - tool: b", "    arguments:", "      text: "+strings.Repeat("long ", 20_000),
		"  - tool: c", "    arguments:", "      top:") + block.String()
	s := mustParse(t, "x.yaml", src)
	if len(s.Calls) != 3 {
		t.Errorf("%d calls", len(s.Calls))
	}
}

// TestLoadBounded: Load reads at most one byte past MaxFileSize, whatever
// the file: a device without end, a FIFO fed without end, a huge sparse
// file.
func TestLoadBounded(t *testing.T) {
	const budget = 16 << 20
	dir := t.TempDir()
	sparse := filepath.Join(dir, "huge.yaml")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // the writer: endless, until the reader goes away
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		chunk := []byte(strings.Repeat("a: b\n", 1000))
		for ctx.Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}()
	for _, path := range []string{"/dev/zero", fifo, sparse} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var err error
			cost := allocated(func() { _, err = Load(path) })
			want := path + ": file is larger than 1048576 bytes (1MiB), the most a scenario may hold"
			if err == nil || err.Error() != want {
				t.Errorf("error:\n%v\nwant:\n%s", err, want)
			}
			if cost > budget {
				t.Errorf("allocated %d MiB, want at most %d MiB", cost>>20, budget>>20)
			}
		})
	}
}
