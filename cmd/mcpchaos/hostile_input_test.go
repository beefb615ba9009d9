//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The hostile-input suite: files an adversarial user could hand mcpchaos,
// one or more per family of docs/limits.md. The real binary runs validate
// and run on each, and each must exit 2 with the bound named in its
// message, within a time and a peak-memory bound (measured by the
// kernel: the process's maximum resident set size, in kilobytes on
// Linux, hence the build tag).

// hostileTime tells a bound that holds from a decoder that loops or grows
// without one (those take minutes or never end), not how fast a quiet
// machine is: the suite runs beside other work on 2 cores.
const (
	hostileTime   = time.Minute
	hostileMemory = 200 << 20
)

// validHead is what a valid scenario needs besides its load.
const validHead = "target: {builtin: {}}\ncalls: [{tool: echo}]\n"

// hostileFile makes one input in dir and returns its path.
type hostileFile func(t *testing.T, dir string) string

// text writes src into a file.
func text(src string) hostileFile {
	return func(t *testing.T, dir string) string {
		path := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
}

// sparse makes a file of size bytes that takes no room on disk.
func sparse(size int64) hostileFile {
	return func(t *testing.T, dir string) string {
		path := filepath.Join(dir, "huge.yaml")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		return path
	}
}

// endlessFIFO makes a FIFO that a goroutine feeds without end, to every
// reader that opens it, until the test ends.
func endlessFIFO(t *testing.T, dir string) string {
	path := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		chunk := bytes.Repeat([]byte("a: b\n"), 1000)
		for ctx.Err() == nil {
			w, err := os.OpenFile(path, os.O_WRONLY, 0) // waits for a reader
			if err != nil {
				return
			}
			for ctx.Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					break // the reader went away
				}
			}
			w.Close()
		}
	}()
	t.Cleanup(func() {
		cancel()
		// Let a writer waiting in open go on, see the end and return.
		if r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			<-done
			r.Close()
		}
	})
	return path
}

// blockNest nests n block mappings, each one space deeper.
func blockNest(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	return b.String()
}

// aliasBomb expands to 10^8 nodes if followed naively.
func aliasBomb() string {
	src := "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i < 9; i++ {
		prev := fmt.Sprintf("*a%d", i-1)
		src = fmt.Sprintf("%sa%d: &a%d [%s%s]\n", src, i, i, strings.Repeat(prev+", ", 9), prev)
	}
	return "x-bomb:\n" + indent(src) + "target: {builtin: {}}\nload: {rate: 1/s, duration: 1s}\ncalls: [{tool: echo, arguments: {bomb: *a8}}]\n"
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}

func TestHostileInput(t *testing.T) {
	exe := bin.Need(t)
	longKey := strings.Repeat("k", 10_000)
	tests := []struct {
		name  string
		file  hostileFile
		flags []string // for run only
		want  string   // in stderr of both commands
	}{
		// The file itself.
		{"/dev/zero", func(*testing.T, string) string { return "/dev/zero" }, nil, "file is larger than 1048576 bytes"},
		{"a FIFO fed without end", endlessFIFO, nil, "file is larger than 1048576 bytes"},
		{"a 2 GB file", sparse(2 << 30), nil, "file is larger than 1048576 bytes"},
		{"UTF-16", text("\xff\xfen\x00a\x00m\x00e\x00"), nil, "file is UTF-16"},

		// The YAML parser's memory.
		{"1 MB of [", text(strings.Repeat("[", 1<<20-1)), nil, "more than 100000 YAML tokens"},
		{"deep flow sequences", text("a: " + strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000)), nil, "nested deeper than 100 levels"},
		{"deep flow mappings", text("a: " + strings.Repeat("{a: ", 20_000) + "1" + strings.Repeat("}", 20_000)), nil, "nested deeper than 100 levels"},
		{"deep block mappings", text(blockNest(1400)), nil, "nested deeper than 100 levels"},
		{"deep block sequences", text(strings.Repeat("- ", 20_000)), nil, "nested deeper than 100 levels"},
		{"1 MB of commas", text("a: [" + strings.Repeat("a,", 1<<19-4) + "]"), nil, "more than 100000 YAML tokens"},
		{"just under the token bound", text("a: [" + strings.Repeat("a,", 49_000) + "]\n"), nil, `unknown key "a"`},
		{"a long key above many values", text(longKey + ": [" + strings.Repeat("a,", 40_000) + "]"), nil, "more than 16MiB of key paths"},
		{"aliases of aliases", text(aliasBomb()), nil, "expands to more than 100000 nodes"},

		// Values that cannot be honoured.
		{"rate per nanosecond", text(validHead + "load: {rate: 1/1ns, duration: 1s}\n"), nil, `rate "1/1ns" is 1e+09/s, above the most mcpchaos can pace: 100000/1s`},
		{"rate of a trillion", text(validHead + "load: {rate: 1000000000000/1s, duration: 1s}\n"), nil, "above the most mcpchaos can pace: 100000/1s"},
		{"a stage's rate", text(validHead + "load: {stages: [{to: 1/1ns, over: 1s}]}\n"), nil, "above the most mcpchaos can pace: 100000/1s"},
		{"concurrency", text(validHead + "load: {concurrency: 100000000, duration: 1s}\n"), nil, "load.concurrency: must be at most 100000"},
		{"max_in_flight", text(validHead + "load: {rate: 1/s, duration: 1s, max_in_flight: 10000000000}\n"), nil, "load.max_in_flight: must be at most 100000"},
		{"a load length that overflows", text(validHead + "load: {stages: [{to: 1/s, over: 1s}], duration: 2562047h}\n"), nil, "longer than the most a scenario may ask for: 168h"},
		{"stages past a week", text(validHead + "load: {stages: [{to: 1/s, over: 100h}, {to: 1/s, over: 100h}]}\n"), nil, "the load lasts longer than 168h"},
		{"a timeout", text(validHead + "load: {rate: 1/s, duration: 1s}\ntimeouts: {idle: 1s, max: 2562047h}\n"), nil, "timeouts.max: duration 2562047h is longer"},
		{"an oversize body", text(validHead + "load: {rate: 1/s, duration: 1s}\nfaults: [{kind: malformed, mode: oversize, size: 8GiB}]\n"), nil, `size "8GiB" is larger than the most mcpchaos builds: 256MiB`},
		{"a built-in knob", text("target: {builtin: {stop_delay: 1000h}}\ncalls: [{tool: echo}]\nload: {rate: 1/s, duration: 1s}\n"), nil, "want a duration from 0 to 24h"},
		{"a URL port", text("target: {http: {url: 'http://127.0.0.1:70000/mcp'}}\ncalls: [{tool: echo}]\nload: {rate: 1/s, duration: 1s}\n"), nil, "port 70000 is not between 1 and 65535"},
		{"a URL without a host", text("target: {http: {url: 'http:///mcp'}}\ncalls: [{tool: echo}]\nload: {rate: 1/s, duration: 1s}\n"), nil, "missing host"},

		// Flags of run go through the same checks.
		{"--rate", text(validHead + "load: {rate: 1/s, duration: 1s}\n"), []string{"--rate", "1/1ns"}, "rate override: rate \"1/1ns\" is 1e+09/s"},
		{"--duration", text(validHead + "load: {rate: 1/s, duration: 1s}\n"), []string{"--duration", "2562047h"}, "duration override: duration 2562047h is longer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.file(t, t.TempDir())
			commands := [][]string{{"validate", path}, append([]string{"run", path, "-q"}, tt.flags...)}
			if tt.flags != nil {
				commands = commands[1:] // validate has no overrides; the file is valid
			}
			for _, args := range commands {
				runHostile(t, exe, args, tt.want)
			}
		})
	}
}

// TestByteOrderMarkAccepted: a scenario saved with a UTF-8 byte order mark
// is read as without it.
func TestByteOrderMarkAccepted(t *testing.T) {
	path := writeScenario(t, "bom.yaml", "\xef\xbb\xbfname: bom\n"+validHead+"load: {rate: 1/s, duration: 1s}\n")
	code, stdout, stderr := runCLI(t, context.Background(), "validate", path)
	if code != 0 || !strings.Contains(stdout, "(name: bom,") {
		t.Errorf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}

// runHostile runs the binary with args and checks the exit code (2), the
// message, the time and the peak memory (runMeasured).
func runHostile(t *testing.T, exe string, args []string, want string) {
	t.Helper()
	code, stdout, stderr := runMeasured(t, exe, args...)
	if code != 2 {
		t.Errorf("mcpchaos %s: exit code %d, want 2\nstdout: %.500s\nstderr: %.500s", args[0], code, stdout, stderr)
		return
	}
	if !strings.Contains(stderr, want) {
		t.Errorf("mcpchaos %s: stderr does not say %q:\n%.1000s", args[0], want, stderr)
	}
}
