package probes

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParseSchedstat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, line string
		want       schedTimes
		wantErr    string
	}{
		{name: "three numbers", line: "207519774 69514612 898\n", want: schedTimes{onCPU: 207519774, wait: 69514612, slices: 898}},
		{name: "zeros", line: "0 0 0", want: schedTimes{}},
		{name: "too few", line: "12 34", wantErr: `schedstat "12 34": want 3 numbers`},
		{name: "not a number", line: "12 x 3", wantErr: "field 2 is not a count"},
		{name: "negative", line: "12 -4 3", wantErr: "field 2 is not a count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseSchedstat([]byte(tt.line))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseSchedstat(%q) = %+v, %v; want error containing %q", tt.line, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("parseSchedstat(%q) = %+v, %v; want %+v", tt.line, got, err, tt.want)
			}
		})
	}
}

// fakeTasks writes proc/PID/stat and one schedstat line per thread.
func fakeTasks(t *testing.T, proc string, pid int, stat string, threads map[int]string) {
	t.Helper()
	dir := filepath.Join(proc, strconv.Itoa(pid))
	for tid, line := range threads {
		td := filepath.Join(dir, "task", strconv.Itoa(tid))
		if err := os.MkdirAll(td, 0o755); err != nil {
			t.Fatal(err)
		}
		if line != "" {
			if err := os.WriteFile(filepath.Join(td, "schedstat"), []byte(line), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestProcessRunWaitFake(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		threads map[int]string // of the child 101; the root 100 has one thread of 1 s on a CPU, 0.5 s waiting
		want    RunWait
	}{
		{name: "summed over the tree's threads", threads: map[int]string{101: "2000000000 250000000 7", 102: "0 250000000 3"},
			want: RunWait{Known: true, OnCPUSeconds: 3, WaitSeconds: 1, Slices: 14}},
		{name: "a kernel without schedstat", threads: map[int]string{101: ""}, want: RunWait{Err: errNoSchedstat.Error()}},
		{name: "a broken line", threads: map[int]string{101: "1 2"}, want: RunWait{Err: "want 3 numbers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proc := t.TempDir()
			fakeTasks(t, proc, 100, statLine(100, "server", 'S', 1, 1, 1, 0, 0, 1), map[int]string{100: "1000000000 500000000 4"})
			fakeTasks(t, proc, 101, statLine(101, "worker", 'R', 100, 1, 1, 0, 0, 2), tt.threads)
			p := NewProcess(func() []int { return []int{100} })
			p.proc = proc
			got, err := p.SampleTree(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if got.Processes != 2 {
				t.Fatalf("SampleTree = %+v, want 2 processes", got)
			}
			if tt.want.Err != "" {
				if got.Sched.Known || !strings.Contains(got.Sched.Err, tt.want.Err) {
					t.Errorf("Sched = %+v, want not known, error containing %q", got.Sched, tt.want.Err)
				}
				return
			}
			if n := len(got.Sched.ByThread); n != 3 {
				t.Errorf("Sched.ByThread has %d threads, want 3 (100, 101, 102)", n)
			}
			got.Sched.ByThread = nil
			if !reflect.DeepEqual(got.Sched, tt.want) {
				t.Errorf("Sched = %+v, want %+v", got.Sched, tt.want)
			}
		})
	}
}
