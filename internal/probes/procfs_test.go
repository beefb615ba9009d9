package probes

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// statLine builds a /proc/PID/stat line with the fields a probe reads.
func statLine(pid int, comm string, state byte, ppid int, utime, stime, cutime, cstime, threads int) string {
	// Fields 3..52 of proc(5); unread ones are 0.
	f := make([]string, 50)
	for i := range f {
		f[i] = "0"
	}
	f[0] = string(state)
	f[4-3] = fmt.Sprint(ppid)
	f[14-3], f[15-3], f[16-3], f[17-3] = fmt.Sprint(utime), fmt.Sprint(stime), fmt.Sprint(cutime), fmt.Sprint(cstime)
	f[20-3] = fmt.Sprint(threads)
	return fmt.Sprintf("%d (%s) %s\n", pid, comm, strings.Join(f, " "))
}

func TestParseStat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		line    string
		want    procStat
		wantErr string
	}{
		{name: "plain", line: statLine(42, "node", 'S', 1, 10, 5, 3, 2, 7), want: procStat{pid: 42, ppid: 1, state: 'S', ticks: 20, threads: 7, comm: "node"}},
		{name: "comm with spaces and parentheses", line: statLine(43, "a) (b ) R 9", 'R', 42, 1, 1, 0, 0, 1), want: procStat{pid: 43, ppid: 42, state: 'R', ticks: 2, threads: 1, comm: "a) (b ) R 9"}},
		{name: "the real thing", line: "3740 (cat) R 3725 3725 30240 0 -1 4194304 100 0 0 0 4 1 0 0 20 0 1 0 193388 3133440 393 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
			want: procStat{pid: 3740, ppid: 3725, state: 'R', ticks: 5, threads: 1, start: 193388, comm: "cat"}},
		{name: "no comm", line: "42 node S 1", wantErr: "no (comm)"},
		{name: "too short", line: "42 (node) S 1 2 3\n", wantErr: "want at least 20"},
		{name: "bad number", line: strings.Replace(statLine(42, "x", 'S', 1, 0, 0, 0, 0, 1), " S 1 ", " S one ", 1), wantErr: "field 4"},
		{name: "bad pid", line: "x (node) S 1", wantErr: "pid in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat([]byte(tt.line))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseStat = %+v, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("parseStat = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// fakeProc writes a /proc-like directory: pid → stat line.
func fakeProc(t *testing.T, stats map[int]string) string {
	t.Helper()
	dir := t.TempDir()
	for pid, line := range stats {
		d := filepath.Join(dir, fmt.Sprint(pid))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "stat"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, other := range []string{"self", "sys", "0"} {
		if err := os.Mkdir(filepath.Join(dir, other), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestProcessTreeFake(t *testing.T) {
	t.Parallel()
	proc := fakeProc(t, map[int]string{
		1:   statLine(1, "init", 'S', 0, 1000, 1000, 0, 0, 1),
		100: statLine(100, "server (main)", 'S', 1, 10, 5, 3, 2, 4), // 20 ticks
		101: statLine(101, "sh", 'R', 100, 60, 40, 0, 0, 1),         // 100
		102: statLine(102, "done", 'Z', 101, 7, 0, 0, 0, 1),         // 7, a zombie
		103: statLine(103, "worker", 'S', 101, 2, 1, 0, 0, 2),       // 3
		200: statLine(200, "unrelated", 'R', 1, 500, 0, 0, 0, 9),
	})
	tick := 1 / clockTicks()
	tests := []struct {
		name    string
		roots   []int
		want    ProcessSample
		wantErr string
	}{
		{name: "one tree", roots: []int{100}, want: ProcessSample{CPUSeconds: 130 * tick, Threads: 7, Children: 2, Processes: 3, Zombies: 1}},
		{name: "a leaf", roots: []int{103}, want: ProcessSample{CPUSeconds: 3 * tick, Threads: 2, Children: 0, Processes: 1}},
		{name: "a root inside another root's tree", roots: []int{100, 101}, want: ProcessSample{CPUSeconds: 130 * tick, Threads: 7, Children: 1, Processes: 3, Zombies: 1}},
		{name: "a root twice", roots: []int{103, 103}, want: ProcessSample{CPUSeconds: 3 * tick, Threads: 2, Processes: 1}},
		{name: "two trees", roots: []int{103, 200}, want: ProcessSample{CPUSeconds: 503 * tick, Threads: 11, Processes: 2}},
		{name: "a zombie root", roots: []int{102}, want: ProcessSample{CPUSeconds: 7 * tick, Zombies: 1}},
		// A root that ended is left out, and counted as gone.
		{name: "missing root", roots: []int{100, 999}, want: ProcessSample{CPUSeconds: 130 * tick, Threads: 7, Children: 2, Processes: 3, Zombies: 1, Gone: 1}},
		{name: "no roots", roots: nil, want: ProcessSample{}},
		{name: "invalid root", roots: []int{0}, wantErr: "invalid pid 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewProcess(func() []int { return tt.roots })
			p.proc = proc
			got, err := p.SampleTree(t.Context())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("SampleTree = %+v, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Sched.Known && got.Processes > 0 {
				t.Errorf("Sched = %+v from a /proc without task/ directories, want not known", got.Sched)
			}
			got.Sched = RunWait{}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SampleTree = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestProcessTreeFakeBroken(t *testing.T) {
	t.Parallel()
	// A stat the probe cannot read could hide a descendant: an error that
	// names the file, not a silent undercount.
	proc := fakeProc(t, map[int]string{
		100: statLine(100, "server", 'S', 1, 1, 1, 0, 0, 1),
		300: "300 (broken",
	})
	p := NewProcess(func() []int { return []int{100} })
	p.proc = proc
	_, err := p.SampleTree(t.Context())
	if want := "parse " + proc + "/300/stat"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("SampleTree error = %v, want one containing %q", err, want)
	}
}

func TestAuxvClockTicks(t *testing.T) {
	t.Parallel()
	word := int(unsafe.Sizeof(uintptr(0)))
	put := func(b []byte, v uint64) []byte {
		w := make([]byte, word)
		if word == 4 {
			binary.NativeEndian.PutUint32(w, uint32(v))
		} else {
			binary.NativeEndian.PutUint64(w, v)
		}
		return append(b, w...)
	}
	var auxv []byte
	for _, kv := range [][2]uint64{{6, 4096}, {17, 250}, {0, 0}} { // AT_PAGESZ, AT_CLKTCK, AT_NULL
		auxv = put(put(auxv, kv[0]), kv[1])
	}
	path := filepath.Join(t.TempDir(), "auxv")
	if err := os.WriteFile(path, auxv, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := auxvClockTicks(path); got != 250 {
		t.Errorf("auxvClockTicks = %d, want 250", got)
	}
	if got := auxvClockTicks(filepath.Join(t.TempDir(), "none")); got != 0 {
		t.Errorf("auxvClockTicks of a missing file = %d, want 0", got)
	}
	if _, err := os.Stat("/proc/self/auxv"); err == nil && clockTicks() != 100 {
		t.Logf("CLK_TCK here is %v, not 100", clockTicks())
	}
}
