package engine

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// The client's own memory limit (issue 28 item 5). A load generator that
// runs out of memory is killed (the kernel's OOM killer in a container)
// or thrashes in its garbage collector (GOMEMLIMIT), and either way the
// server is judged on load it was never given. So the run watches its own
// memory against the limit it runs under: past memHigh of it no new call
// is sent, each one due is recorded client_limit with the limit "memory"
// (never the server's failure, and the run fails with exit status 3),
// until the memory falls under memLow of it as calls end.
//
// The limit is the lower of GOMEMLIMIT (Go's own soft limit, set in the
// environment or by debug.SetMemoryLimit) and the limit of the cgroup the
// process runs in (memory.max in v2, memory.limit_in_bytes in v1), as a
// container's memory limit is. The
// memory compared with it is what the Go runtime holds from the system
// and has not given back (runtime/metrics: /memory/classes/total less
// /memory/classes/heap/released), about the process's RSS. Not watched:
// `ulimit -v`, which counts address space the runtime reserves and never
// touches; children a stdio target runs are not counted, although a cgroup
// counts them.

// memHigh and memLow are the shares of the limit at which new calls stop
// being sent and start again.
const (
	memHigh = 0.90
	memLow  = 0.80
)

// memEvery is how many of the periodic monitor's ticks (readlag.go) pass
// between readings: 50 ms.
const memEvery = 5

// memGuard watches the process's memory against its limit; nil: no limit.
type memGuard struct {
	limit   uint64
	source  string // where the limit comes from, for the record's error
	samples []metrics.Sample
	ticks   int // the monitor's ticks since the last reading (its goroutine only)
	used    atomic.Uint64
	short   atomic.Bool
}

// newMemGuard returns a guard for the process's limit: the lower of
// GOMEMLIMIT and its cgroup's limit under cgroupRoot; nil when there is
// neither.
func newMemGuard(cgroupRoot string) *memGuard {
	var g memGuard
	if l := debug.SetMemoryLimit(-1); l > 0 && l < math.MaxInt64 {
		g.limit, g.source = uint64(l), "GOMEMLIMIT"
	}
	procCgroup, _ := os.ReadFile("/proc/self/cgroup")
	if l, path, ok := cgroupMemoryMax(cgroupRoot, string(procCgroup)); ok && (g.limit == 0 || l < g.limit) {
		g.limit, g.source = l, "the cgroup's "+path
	}
	if g.limit == 0 {
		return nil
	}
	g.samples = memSamples()
	return &g
}

// memSamples are the runtime's readings tick takes: its memory from the
// system, and the heap's given back.
func memSamples() []metrics.Sample {
	return []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
}

// cgroupMemoryMax reads the memory limit of the cgroup this process is in
// (procCgroup: the text of /proc/self/cgroup) under root (/sys/fs/cgroup):
// memory.max in cgroup v2, memory.limit_in_bytes in v1. ok is false when
// there is none ("max", or v1's page-rounded largest value) or it cannot
// be read. A container that sees its own cgroup as the root finds the
// file at the root when not at the path.
func cgroupMemoryMax(root, procCgroup string) (limit uint64, path string, ok bool) {
	for _, line := range strings.Split(procCgroup, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		dir, file := root, "memory.max" // v2: "0::/path"
		if parts[0] != "0" || parts[1] != "" {
			if !hasController(parts[1], "memory") {
				continue
			}
			dir, file = filepath.Join(root, "memory"), "memory.limit_in_bytes"
		}
		for _, p := range []string{filepath.Join(dir, filepath.Clean("/"+parts[2]), file), filepath.Join(dir, file)} {
			v, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			n, err := strconv.ParseUint(strings.TrimSpace(string(v)), 10, 64)
			if err != nil || n == 0 || n >= 1<<62 {
				break // "max", or v1's no limit
			}
			return n, p, true
		}
	}
	return 0, "", false
}

// hasController says whether a v1 line's controller list names c.
func hasController(list, c string) bool {
	for _, name := range strings.Split(list, ",") {
		if name == c {
			return true
		}
	}
	return false
}

// tick is called by the periodic monitor: every memEvery ticks it reads
// the memory and says whether new calls are to wait.
func (g *memGuard) tick(time.Time) {
	if g == nil {
		return
	}
	if g.ticks++; g.ticks < memEvery {
		return
	}
	g.ticks = 0
	metrics.Read(g.samples)
	var used uint64
	if s := g.samples[0]; s.Value.Kind() == metrics.KindUint64 {
		used = s.Value.Uint64()
	}
	if s := g.samples[1]; s.Value.Kind() == metrics.KindUint64 {
		used -= min(used, s.Value.Uint64())
	}
	g.set(used)
}

// set takes one reading of the memory in use.
func (g *memGuard) set(used uint64) {
	g.used.Store(used)
	switch {
	case float64(used) >= memHigh*float64(g.limit):
		g.short.Store(true)
	case float64(used) < memLow*float64(g.limit):
		g.short.Store(false)
	}
}

// refuse returns why a call due now is not to be sent (an error that is
// ENOMEM to errors.As, so the call is client_limit "memory"), or nil.
func (g *memGuard) refuse() error {
	if g == nil || !g.short.Load() {
		return nil
	}
	return &memShortError{used: g.used.Load(), limit: g.limit, source: g.source}
}

// memShortError is a call not sent for the client's memory.
type memShortError struct {
	used, limit uint64
	source      string
}

func (e *memShortError) Error() string {
	return fmt.Sprintf("not sent: the client holds %.1f MiB of its %.1f MiB memory limit (%s), over %.0f%%; calls are sent again under %.0f%%",
		mib(e.used), mib(e.limit), e.source, memHigh*100, memLow*100)
}

func (e *memShortError) Unwrap() error { return syscall.ENOMEM }

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
