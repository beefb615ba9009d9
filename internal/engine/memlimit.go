package engine

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The client's own memory limit (issue 28 item 5). A load generator that
// runs out of memory is killed (the kernel's OOM killer in a container)
// or thrashes in its garbage collector (GOMEMLIMIT), and either way the
// server is judged on load it was never given. So the run watches its own
// memory against the limit it runs under: from memHigh of it no new call
// is sent, each one due is recorded client_limit with the limit "memory"
// (never the server's failure, and the run fails with exit status 3),
// until the memory falls under memLow of it as calls end.
//
// The limit is the lower of GOMEMLIMIT (Go's own soft limit, set in the
// environment or by debug.SetMemoryLimit) and the limit of the cgroup the
// process runs in, as a container's memory limit is: the least memory.max
// from its cgroup up to the root in v2, hierarchical_memory_limit in v1.
// With a cgroup's limit and no GOMEMLIMIT, Go's soft limit is set to
// cgroupSoft of it, once per process, so that the collector works harder
// before the kernel kills.
//
// The memory compared with the limit is what the process needs, not what
// it holds: the heap found live by the last collection, plus everything
// the runtime holds outside the heap's objects (goroutine stacks, its own
// metadata). Garbage not yet collected is left out: under a limit the
// runtime lets the heap grow to it before collecting, and counting that
// would refuse calls a collection makes room for. While new calls are
// refused a collection is asked for every memNudge, since with few
// allocations none may come for minutes. Not watched: `ulimit -v`, which
// counts address space the runtime reserves and never touches; what else
// a cgroup charges (a stdio server's processes, socket buffers, page
// cache), which is not the client's.

// memHigh and memLow are the shares of the limit at which new calls stop
// being sent and start again; cgroupSoft the share of a cgroup's limit Go's
// soft limit is set to.
const (
	memHigh    = 0.85
	memLow     = 0.75
	cgroupSoft = 0.90
)

// memEvery is how many of the periodic monitor's ticks (readlag.go) pass
// between readings: 50 ms; memNudge how often a collection is asked for
// while calls are refused.
const (
	memEvery = 5
	memNudge = 500 * time.Millisecond
)

// memGuard watches the process's memory against its limit; nil: no limit.
type memGuard struct {
	limit   uint64
	source  string // where the limit comes from, for the record's error
	samples []metrics.Sample
	ticks   int       // the monitor's ticks since the last reading (its goroutine only)
	nudged  time.Time // when a collection was last asked for (the same)
	used    atomic.Uint64
	short   atomic.Bool
	inGC    atomic.Bool // a collection asked for is running
}

// softMu guards Go's soft limit while newMemGuard reads it and may set it
// from the cgroup's, once per process (softSet); ourSoft is what it set
// (0: none), which is then no limit of the user's. The setting is the
// whole process's: in a test binary, every later run's too.
var (
	softMu  sync.Mutex
	softSet bool
	ourSoft int64
)

// newMemGuard returns a guard for the process's limit: the lower of
// GOMEMLIMIT and its cgroup's limit under cgroupRoot; nil when there is
// neither.
func newMemGuard(cgroupRoot string) *memGuard {
	g := &memGuard{samples: memSamples()}
	softMu.Lock()
	defer softMu.Unlock()
	if soft := debug.SetMemoryLimit(-1); soft > 0 && soft < math.MaxInt64 && soft != ourSoft {
		g.limit, g.source = uint64(soft), "GOMEMLIMIT"
	}
	procCgroup, _ := os.ReadFile("/proc/self/cgroup")
	cg, path, ok := cgroupMemoryMax(cgroupRoot, string(procCgroup))
	if !ok {
		return g.orNil()
	}
	// GOMEMLIMIT=off is the user's word too: no soft limit then.
	if _, userSet := os.LookupEnv("GOMEMLIMIT"); !softSet && !userSet && debug.SetMemoryLimit(-1) == math.MaxInt64 {
		ourSoft = int64(cgroupSoft * float64(cg))
		debug.SetMemoryLimit(ourSoft)
	}
	softSet = true
	if g.limit == 0 || cg < g.limit {
		g.limit, g.source = cg, fmt.Sprintf("the cgroup's %q", path)
	}
	return g.orNil()
}

// orNil is g, or nil when it has no limit.
func (g *memGuard) orNil() *memGuard {
	if g.limit == 0 {
		return nil
	}
	return g
}

// memSamples are the runtime's readings tick takes (memNeeded).
func memSamples() []metrics.Sample {
	return []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
}

// memNeeded is what the process needs of the memory it holds: all of it
// (total) but the heap's free, released and unused spans and its objects,
// plus the objects the last collection found live. Goroutine stacks count
// whole (the collections the guard asks for give back those of goroutines
// that ended).
func memNeeded(s []metrics.Sample) uint64 {
	var v [6]uint64
	for i := range min(len(s), len(v)) {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	held := v[1] + v[2] + v[3] + v[4]
	return v[0] - min(v[0], held) + v[5]
}

// cgroupMemoryMax reads the memory limit of the cgroup this process is in
// (procCgroup: the text of /proc/self/cgroup) under root (/sys/fs/cgroup).
// In v2 it is the least memory.max from the process's cgroup up to the
// root: a limit set on a parent (a container's, a systemd slice's) holds
// its children to it. In v1 it is the hierarchical_memory_limit of the
// cgroup's memory.stat, which is that least already, or its
// memory.limit_in_bytes. A container that sees its own cgroup as the root
// does not find the host's path under it: then the root's files are read.
// ok is false when there is no limit ("max", or v1's page-rounded largest
// value) or nothing could be read; path is the file the limit came from.
func cgroupMemoryMax(root, procCgroup string) (limit uint64, path string, ok bool) {
	for _, line := range strings.Split(procCgroup, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		rel := filepath.Clean("/" + parts[2])
		if parts[0] == "0" && parts[1] == "" { // v2: "0::/path"
			if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
				rel = "/"
			}
			for dir := rel; ; dir = filepath.Dir(dir) {
				p := filepath.Join(root, dir, "memory.max")
				if n, read := readLimit(p, ""); read && (!ok || n < limit) {
					limit, path, ok = n, p, true
				}
				if dir == "/" {
					break
				}
			}
			continue
		}
		if !slices.Contains(strings.Split(parts[1], ","), "memory") { // v1: its controllers
			continue
		}
		dir := filepath.Join(root, "memory", rel)
		if _, err := os.Stat(dir); err != nil {
			dir = filepath.Join(root, "memory")
		}
		for _, f := range []struct{ name, key string }{{"memory.stat", "hierarchical_memory_limit"}, {"memory.limit_in_bytes", ""}} {
			p := filepath.Join(dir, f.name)
			if n, read := readLimit(p, f.key); read && (!ok || n < limit) {
				limit, path, ok = n, p, true
				break
			}
		}
	}
	return limit, path, ok
}

// readLimit reads a limit in bytes from the file at p: its whole text, or
// the value of the line that starts with key. read is false when there is
// none: no file, no such line, "max", 0 or v1's largest value.
func readLimit(p, key string) (n uint64, read bool) {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, false
	}
	text := strings.TrimSpace(string(b))
	if key != "" {
		text = ""
		for _, l := range strings.Split(string(b), "\n") {
			if v, found := strings.CutPrefix(l, key+" "); found {
				text = strings.TrimSpace(v)
			}
		}
	}
	n, err = strconv.ParseUint(text, 10, 64)
	if err != nil || n == 0 || n >= 1<<62 {
		return 0, false
	}
	return n, true
}

// tick is called by the periodic monitor: every memEvery ticks it reads
// the memory and says whether new calls are to wait; while they do, it
// asks for a collection every memNudge (on a goroutine of its own, so
// that the monitor does not stall).
func (g *memGuard) tick(now time.Time) {
	if g == nil {
		return
	}
	if g.ticks++; g.ticks < memEvery {
		return
	}
	g.ticks = 0
	metrics.Read(g.samples)
	g.set(memNeeded(g.samples))
	if g.short.Load() && now.Sub(g.nudged) >= memNudge && g.inGC.CompareAndSwap(false, true) {
		g.nudged = now
		go func() {
			defer g.inGC.Store(false)
			runtime.GC()
		}()
	}
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

// isShort says whether new calls are refused now.
func (g *memGuard) isShort() bool { return g != nil && g.short.Load() }

// await waits while new calls are refused, until ctx ends or deadline:
// a closed-model worker whose call was refused would otherwise refuse the
// next one at once, over and over, each a record of its own.
func (g *memGuard) await(ctx context.Context, deadline time.Time) {
	for g.isShort() && time.Now().Before(deadline) {
		if !sleep(ctx, memEvery*lagTick) {
			return
		}
	}
}

// memShortError is a call not sent for the client's memory.
type memShortError struct {
	used, limit uint64
	source      string
}

func (e *memShortError) Error() string {
	return fmt.Sprintf("not sent: the client needed %.1f MiB of its %.1f MiB memory limit (%s), having reached %.0f%% of it; calls are sent again under %.0f%%",
		mib(e.used), mib(e.limit), e.source, memHigh*100, memLow*100)
}

func (e *memShortError) Unwrap() error { return syscall.ENOMEM }

// mib is b in MiB.
func mib(b uint64) float64 { return float64(b) / (1 << 20) }
