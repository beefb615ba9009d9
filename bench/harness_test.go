package bench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/stepserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// bin is the mcpchaos binary built by TestMain ("" when no benchmark was
// asked for, or under -short).
var bin string

// TestMain builds the real binary once, into a temporary directory, when a
// benchmark is going to run. MCPCHAOS_BENCH_BIN names a binary to use
// instead (to compare two builds).
func TestMain(m *testing.M) {
	if os.Getenv(cheapEnv) == "1" { // re-executed as the cheap server (cheapserver_test.go)
		os.Exit(serveCheap())
	}
	if c, ok, err := stepserver.FromEnv(); ok { // re-executed as a step server (agreement_test.go)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(stepserver.Serve(c))
	}
	flag.Parse()
	var dir string
	if prebuilt := os.Getenv("MCPCHAOS_BENCH_BIN"); prebuilt != "" {
		bin = prebuilt
	} else if !testing.Short() && flagSet("test.bench") {
		var err error
		if dir, err = os.MkdirTemp("", "mcpchaos-bench-"); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %v\n", err)
			os.Exit(2)
		}
		if bin, err = testutil.Build(dir); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %v\n", err)
			os.RemoveAll(dir)
			os.Exit(2)
		}
	}
	code := m.Run()
	if dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

func flagSet(name string) bool {
	f := flag.Lookup(name)
	return f != nil && f.Value.String() != ""
}

// setup skips under -short and checks the binary was built.
func setup(b *testing.B) {
	b.Helper()
	if testing.Short() {
		b.Skip("bench: end-to-end load benchmark, skipped under -short; run it with -bench and -benchtime=1x (see bench/README.md)")
	}
	if bin == "" {
		b.Fatal("bench: the mcpchaos binary was not built (TestMain builds it only when -bench is set)")
	}
}

// runResult is one `mcpchaos run`.
type runResult struct {
	Summary   summary
	User, Sys time.Duration
	Wall      time.Duration
	MaxRSSKiB int64
	Exit      int // the exit status: 0, 1 (a check or verdict failed) or 3 (a client limit)
	Stdout    string
	Dir       string // holds scenario.yaml, summary.json and results.jsonl
}

// CPU is user+sys.
func (r runResult) CPU() time.Duration { return r.User + r.Sys }

// runOpts tune one run.
type runOpts struct {
	// results adds --output DIR/results.jsonl.
	results bool
	// watch, when set, is called with the run's pid once it started and
	// must return when stop is closed.
	watch func(pid int, stop <-chan struct{})
	// limit bounds the whole run (default 2 minutes).
	limit time.Duration
	// env is added to the run's environment (KEY=VALUE).
	env []string
}

// runScenario writes the scenario to a temp dir and runs `mcpchaos run` on
// it as a child process, with --summary-json.
func runScenario(b *testing.B, scenario string, o runOpts) runResult {
	b.Helper()
	dir := b.TempDir()
	path := filepath.Join(dir, "scenario.yaml")
	if err := os.WriteFile(path, []byte(scenario), 0o644); err != nil {
		b.Fatal(err)
	}
	if o.limit <= 0 {
		o.limit = 2 * time.Minute
	}
	args := []string{"run", path, "-q", "--summary-json", filepath.Join(dir, "summary.json")}
	if o.results {
		args = append(args, "--output", filepath.Join(dir, "results.jsonl"))
	}
	if os.Getenv("MCPCHAOS_BENCH_REALTIME") != "" {
		args = append(args, "--realtime") // `run` at real-time priority (timing_test.go)
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.limit)
	defer cancel()
	cmd := pinned(clientCPU, bin, args...)
	cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	if len(o.env) > 0 {
		cmd.Env = append(os.Environ(), o.env...)
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	began := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatalf("start mcpchaos run: %v", err)
	}
	stop := make(chan struct{})
	var watched sync.WaitGroup
	if o.watch != nil {
		watched.Add(1)
		go func() {
			defer watched.Done()
			o.watch(cmd.Process.Pid, stop)
		}()
	}
	err := cmd.Wait()
	wall := time.Since(began)
	close(stop)
	watched.Wait()
	if code := cmd.ProcessState.ExitCode(); err != nil && code != 1 && code != 3 { // 3: a client limit, in the summary
		b.Fatalf("mcpchaos run: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	if os.Getenv("MCPCHAOS_BENCH_REALTIME") != "" && strings.Contains(errb.String(), "--realtime:") {
		b.Fatalf("mcpchaos run --realtime did not keep real-time priority; its figures are not real-time ones:\n%s", errb.String())
	}
	r := runResult{Wall: wall, Stdout: out.String(), Dir: dir, Exit: cmd.ProcessState.ExitCode(),
		User: cmd.ProcessState.UserTime(), Sys: cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.MaxRSSKiB = ru.Maxrss
	}
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		b.Fatalf("read summary: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	if err := json.Unmarshal(raw, &r.Summary.m); err != nil {
		b.Fatalf("decode summary: %v", err)
	}
	return r
}

// summary is the decoded JSON summary.
type summary struct{ m map[string]any }

// num returns a numeric key by its dotted path (as checks name it); 0
// when absent.
func (s summary) num(path string) float64 {
	var v any = s.m
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return 0
		}
		v = m[k]
	}
	f, _ := v.(float64)
	return f
}

// logRun logs the run's text summary when -v is set.
func logRun(b *testing.B, r runResult) {
	b.Helper()
	if testing.Verbose() {
		b.Logf("mcpchaos run: cpu %v (user %v, sys %v), wall %v, maxrss %d KiB\n%s",
			r.CPU(), r.User, r.Sys, r.Wall.Round(time.Millisecond), r.MaxRSSKiB, r.Stdout)
	}
}

// readResults decodes the run's results file, one JSON object a line.
func readResults(b *testing.B, r runResult, each func(rec map[string]any)) {
	b.Helper()
	f, err := os.Open(filepath.Join(r.Dir, "results.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	for {
		var rec map[string]any
		if err := dec.Decode(&rec); err == io.EOF {
			return
		} else if err != nil {
			b.Fatalf("results.jsonl: %v", err)
		}
		each(rec)
	}
}

// machine measures the whole machine's busy CPU over a run, so the CPU
// other processes took (other engineers' tests, say) can be reported
// beside each figure.
type machine struct {
	busy, total int64
	load        string
}

func machineNow() machine {
	var m machine
	if raw, err := os.ReadFile("/proc/stat"); err == nil {
		line, _, _ := strings.Cut(string(raw), "\n")
		// user nice system idle iowait irq softirq steal [guest guest_nice,
		// already counted in user and nice]
		f := strings.Fields(line)
		for i, v := range f[1:min(len(f), 9)] {
			n, _ := strconv.ParseInt(v, 10, 64)
			m.total += n
			if i != 3 && i != 4 { // idle, iowait
				m.busy += n
			}
		}
	}
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.load = strings.Join(strings.Fields(string(raw))[:3], " ")
	}
	return m
}

// reportOthers reports the CPU seconds that processes other than ours
// used during the run (ours: the client run and the server), as a share
// of the machine's capacity over the run, and logs the load average.
func reportOthers(b *testing.B, before machine, ours time.Duration) {
	b.Helper()
	after := machineNow()
	const hz = 100
	busy := time.Duration(after.busy-before.busy) * time.Second / hz
	capacity := time.Duration(after.total-before.total) * time.Second / hz
	if capacity <= 0 {
		return
	}
	others := max(busy-ours, 0)
	b.ReportMetric(others.Seconds()/capacity.Seconds(), "others-cpu-frac")
	b.Logf("machine: load average before %s; %v busy of %v capacity, %v of it not ours",
		before.load, busy.Round(10*time.Millisecond), capacity.Round(10*time.Millisecond), others.Round(10*time.Millisecond))
}

// verdict logs whether a figure met its target. A miss is logged, not
// failed: a failed benchmark prints no figures, and the figures are the
// point.
func verdict(b *testing.B, met bool, format string, args ...any) {
	b.Helper()
	if met {
		b.Logf("target met: "+format, args...)
	} else {
		b.Logf("TARGET MISSED: "+format, args...)
	}
}
