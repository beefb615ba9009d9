package engine

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// TestCgroupMemoryMax: the limit of the process's cgroup, v2 (the least
// from its cgroup up to the root) or v1 (hierarchical), at its path or (a
// container seeing its own cgroup as the root) at the root; none for
// "max", v1's largest value, no memory line or no file.
func TestCgroupMemoryMax(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string // under the root
		proc   string            // /proc/self/cgroup
		want   uint64
		wantOK bool
	}{
		{"v2 at its path", map[string]string{"a/b/memory.max": "104857600\n"}, "0::/a/b\n", 104857600, true},
		{"v2 no limit", map[string]string{"a/memory.max": "max\n"}, "0::/a\n", 0, false},
		{"v2 at the root", map[string]string{"memory.max": "2048\n"}, "0::/not/here\n", 2048, true},
		{"v2 a parent's limit", map[string]string{"a/memory.max": "4096\n", "a/b/memory.max": "max\n"}, "0::/a/b\n", 4096, true},
		{"v2 the least on the path", map[string]string{"memory.max": "1099511627776\n", "a/memory.max": "8192\n", "a/b/memory.max": "4096\n"},
			"0::/a/b\n", 4096, true},
		{"v1 hierarchical", map[string]string{"memory/x/memory.stat": "cache 0\nhierarchical_memory_limit 65536\nrss 1\n",
			"memory/x/memory.limit_in_bytes": "9223372036854771712\n"}, "4:memory:/x\n", 65536, true},
		{"hybrid: v1 memory, v2 unified", map[string]string{"memory/x/memory.limit_in_bytes": "4096\n"}, "4:memory:/x\n0::/\n", 4096, true},
		{"v1 at its path", map[string]string{"memory/x/memory.limit_in_bytes": "4096\n"},
			"5:cpu,cpuacct:/x\n4:memory:/x\n0::/\n", 4096, true},
		{"v1 no limit", map[string]string{"memory/x/memory.limit_in_bytes": "9223372036854771712\n"},
			"4:memory:/x\n", 0, false},
		{"v1 joined controllers", map[string]string{"memory/memory.limit_in_bytes": "8192\n"},
			"4:memory,hugetlb:/host/path\n", 8192, true},
		{"no memory controller", map[string]string{"cpu/memory.limit_in_bytes": "1\n"}, "1:cpu:/\n", 0, false},
		{"no file", nil, "0::/a\n", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range tt.files {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, path, ok := cgroupMemoryMax(root, tt.proc)
			if got != tt.want || ok != tt.wantOK || ok && path == "" {
				t.Errorf("cgroupMemoryMax = %d, %q, %v; want %d, %v", got, path, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// TestMemGuard: calls stop at 85% of the limit and start again under 75%;
// the refusal is client_limit "memory" and names the limit's source; no
// guard refuses nothing.
func TestMemGuard(t *testing.T) {
	var none *memGuard
	none.tick(time.Time{})
	if err := none.refuse(); err != nil {
		t.Fatalf("no guard refused: %v", err)
	}
	g := &memGuard{limit: 100 << 20, source: "GOMEMLIMIT"}
	steps := []struct {
		usedMiB   uint64
		wantShort bool
	}{{50, false}, {84, false}, {85, true}, {80, true}, {75, true}, {74, false}, {95, true}}
	for _, s := range steps {
		g.set(s.usedMiB << 20)
		err := g.refuse()
		if (err != nil) != s.wantShort {
			t.Fatalf("at %d MiB of 100: refuse() = %v, want short %v", s.usedMiB, err, s.wantShort)
		}
		if err == nil {
			continue
		}
		var errno syscall.Errno
		if !errors.As(err, &errno) || errno != syscall.ENOMEM || clientLimit(err) != results.LimitMemory {
			t.Errorf("refusal %v: not ENOMEM, limit %q", err, clientLimit(err))
		}
		if want := "needed 95.0 MiB of its 100.0 MiB memory limit (GOMEMLIMIT)"; s.usedMiB == 95 && !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q, want %q in it", err, want)
		}
	}
}

// TestMemGuardReads: every memEvery ticks the guard reads the runtime's
// memory: a process holds more than a byte, so a limit of 1 KiB is short
// after the fifth tick and not before.
func TestMemGuardReads(t *testing.T) {
	g := &memGuard{limit: 1 << 10, source: "test", samples: memSamples()}
	for i := 1; i <= memEvery; i++ {
		if g.refuse() != nil {
			t.Fatalf("short after %d ticks, before the guard read anything", i-1)
		}
		g.tick(time.Now())
	}
	if g.refuse() == nil || g.used.Load() < 1<<20 {
		t.Errorf("after %d ticks: used %d bytes, short %v; want over a MiB and short", memEvery, g.used.Load(), g.short.Load())
	}
}

// TestMemGuardResumes: memory the process needed trips the guard, and
// once it is garbage the collection the guard asks for (nothing else in
// this test allocates) lets calls go again.
func TestMemGuardResumes(t *testing.T) {
	g := &memGuard{source: "test", samples: memSamples()}
	runtime.GC()
	metrics.Read(g.samples)
	g.limit = memNeeded(g.samples) + 64<<20
	block := make([]byte, 64<<20)
	for i := range block {
		block[i] = byte(i)
	}
	runtime.GC() // the block is live
	now := time.Now()
	for range memEvery {
		g.tick(now)
	}
	if g.refuse() == nil {
		t.Fatalf("needing %d of %d bytes, the guard lets calls go", g.used.Load(), g.limit)
	}
	runtime.KeepAlive(block)
	block = nil
	for i := 0; i < 100 && g.refuse() != nil; i++ {
		for g.inGC.Load() { // the collection asked for
			time.Sleep(time.Millisecond)
		}
		now = now.Add(memNudge)
		for range memEvery {
			g.tick(now)
		}
	}
	if err := g.refuse(); err != nil {
		t.Errorf("the block is garbage and the guard still refuses: %v", err)
	}
}
