package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
)

// stdioPlan is a short load of echo calls on one stdio server started by
// command.
func stdioPlan(command []string, exitTimeout time.Duration) Plan {
	return Plan{Name: "servers", Seed: 1, LateWindow: 150 * time.Millisecond,
		Target: Target{Stdio: &StdioTarget{StdioConfig: client.StdioConfig{Command: command, ExitTimeout: exitTimeout}}},
		Load:   Load{Rate: perSec(10), Duration: 300 * time.Millisecond}, Calls: []CallSpec{echoCall},
		Timeouts: Timeouts{Idle: 10 * time.Second, Max: 20 * time.Second, Connect: testutil.WaitLong}, Orphans: quickOrphans}
}

// TestServerIgnoresEOFAndSIGTERM: a stdio server that neither exits when
// its stdin closes nor on SIGTERM is killed after the kill grace, and the
// run says so: signalled 1, killed 1, and the sentence naming its pid.
func TestServerIgnoresEOFAndSIGTERM(t *testing.T) {
	t.Parallel()
	exe := bin.Need(t)
	// The shell is the server process: it serves, and once serve has
	// exited on EOF it goes on, deaf to SIGTERM.
	script := fmt.Sprintf(`trap '' TERM; %q serve --stdio; while :; do sleep 1; done`, exe)
	o := runLoad(t, context.Background(), stdioPlan([]string{"sh", "-c", script}, 300*time.Millisecond))
	sp := o.info.Orphans.Processes
	if sp == nil {
		t.Fatal("no report of the server processes")
	}
	if sp.Signalled != 1 || sp.Killed != 1 {
		t.Errorf("signalled %d, killed %d; want 1 and 1", sp.Signalled, sp.Killed)
	}
	said := strings.Join(sp.Notes, "\n")
	if !regexp.MustCompile(`server process \d+ ignored EOF and SIGTERM; killed after `).MatchString(said) {
		t.Errorf("notes %q do not say the server was killed", said)
	}
}

// TestServerExitsOnEOF: a server that exits when its stdin closes is not
// signalled, and leaves nothing running.
func TestServerExitsOnEOF(t *testing.T) {
	t.Parallel()
	exe := bin.Need(t)
	o := runLoad(t, context.Background(), stdioPlan([]string{exe, "serve", "--stdio"}, 0))
	if sp := o.info.Orphans.Processes; sp == nil || sp.Signalled != 0 || sp.Killed != 0 || sp.Leftover != 0 || len(sp.Notes) != 0 {
		t.Errorf("server processes %+v; want nothing signalled or left over", sp)
	}
}

// TestLeftoverChildren: a server that starts a child in a session of its
// own (which the kill of the server's process group does not reach)
// leaves it running after it exits: the run counts it as leftover work,
// names it, and kills it — or leaves it running with LeaveChildren.
func TestLeftoverChildren(t *testing.T) {
	t.Parallel()
	for _, leave := range []bool{false, true} {
		t.Run(fmt.Sprintf("leave %v", leave), func(t *testing.T) {
			t.Parallel()
			exe := bin.Need(t)
			script := fmt.Sprintf(`setsid sleep 3141 </dev/null >/dev/null 2>&1 & exec %q serve --stdio`, exe)
			plan := stdioPlan([]string{"sh", "-c", script}, 0)
			plan.Orphans.LeaveChildren = leave
			o := runLoad(t, context.Background(), plan)
			sp := o.info.Orphans.Processes
			if sp == nil {
				t.Fatal("no report of the server processes")
			}
			said := strings.Join(sp.Notes, "\n")
			m := regexp.MustCompile(`process (\d+) \(sleep\), started by a server, still running after the servers exited; (\w+)`).FindStringSubmatch(said)
			if m == nil {
				t.Fatalf("leftover %d, notes %q; want the sleep named", sp.Leftover, said)
			}
			pid, _ := strconv.Atoi(m[1])
			if leave {
				t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			}
			if sp.Leftover != 1 || sp.LeftRunning != leave {
				t.Errorf("leftover %d, left running %v; want 1, %v", sp.Leftover, sp.LeftRunning, leave)
			}
			want := map[bool]string{false: "killed", true: "left"}[leave]
			if m[2] != want {
				t.Errorf("the note says %q, want %q", m[2], want)
			}
			running := func() bool { return testutil.ProcessRunning(pid) }
			if leave {
				if !running() {
					t.Error("the child left running is not running")
				}
			} else {
				testutil.Eventually(t, "the leftover child to be gone", func() bool { return !running() })
			}
		})
	}
}

// TestProcessProbeFollowsRestarts: after every call's server is replaced
// (a disconnect that closes its stdin), the process probe watches the
// servers that run — never reporting a process that is gone — and still
// measures the CPU of the quiet window.
func TestProcessProbeFollowsRestarts(t *testing.T) {
	t.Parallel()
	exe := bin.Need(t)
	path := filepath.Join(t.TempDir(), "restarts.yaml")
	yaml := fmt.Sprintf(`name: restarts
target:
  stdio: {command: [%q, serve, --stdio]}
load: {rate: 5/1s, duration: 1s}
calls:
  - {tool: slow_task, arguments: {steps: 20, step_ms: 50}}
faults:
  - {kind: disconnect, probability: 1, after: 100ms, mode: close}
orphans: {grace: 100ms}
`, exe)
	prep := prepareFile(t, path, yaml, []string{exe})
	o := runLoad(t, context.Background(), prep.Plan)
	disconnected := 0
	for _, r := range o.recs {
		if r.Outcome == results.Disconnected {
			disconnected++
		}
	}
	// A server is started again for the next call of its slot: on a
	// busy machine fewer calls come after the cuts (and calls sent to a
	// cut server before its exit was seen fail with it: 2 of 5 were cut).
	if disconnected < 1 || o.info.Restarts < 1 {
		t.Fatalf("%d disconnected calls, %d restarts; want the servers replaced", disconnected, o.info.Restarts)
	}
	for _, e := range o.info.Orphans.ProbeErrors {
		// A reading a starved machine did not finish in time names no
		// process that is gone.
		if (strings.Contains(e, "not found") || strings.Contains(e, "process")) && !strings.Contains(e, "context deadline exceeded") {
			t.Errorf("probe error: %s", e)
		}
	}
	if o.info.Orphans.CPU == nil || o.info.Orphans.QuietWindowMs == 0 {
		t.Errorf("the process probe did not measure the quiet window: cpu %+v, quiet window %v ms", o.info.Orphans.CPU, o.info.Orphans.QuietWindowMs)
	}
}

// TestRestartFailureNamed: when the server that replaces a cut stdio
// server cannot start, the calls that find no live server say why, with
// the start's own error (here the server's last stderr line), not only
// that there is none.
func TestRestartFailureNamed(t *testing.T) {
	t.Parallel()
	exe := bin.Need(t)
	dir := t.TempDir()
	mark := filepath.Join(dir, "started")
	script := fmt.Sprintf(`if [ -e %q ]; then echo "boom: no licence left" >&2; exit 3; fi; touch %q; exec %q serve --stdio`, mark, mark, exe)
	path := filepath.Join(dir, "restart-fails.yaml")
	yaml := fmt.Sprintf(`name: restart-fails
target:
  stdio: {command: [sh, -c, %q]}
load: {rate: 5/1s, duration: 1s}
timeouts: {idle: 10s, max: 20s, connect: 60s}
calls:
  - {tool: slow_task, arguments: {steps: 20, step_ms: 50}}
faults:
  - {kind: disconnect, probability: 1, after: 100ms, mode: close}
orphans: {grace: 100ms}
`, script)
	prep := prepareFile(t, path, yaml, nil)
	o := runLoad(t, context.Background(), prep.Plan)
	named := 0
	for _, r := range o.recs {
		if strings.Contains(r.Error, "could not be started again") {
			if !strings.Contains(r.Error, "boom: no licence left") {
				t.Fatalf("record %d: %q does not say why the server did not start", r.Seq, r.Error)
			}
			named++
		}
	}
	if named == 0 {
		t.Fatalf("no call found the replacement missing: %d records", len(o.recs))
	}
}

// TestProcessProbeCountsReplacedServers: the load's CPU counts the stdio
// servers replaced during it, from their wait status, and not only the one
// running at its end: every call burns CPU on a server that a disconnect
// then cuts, so the servers' own CPU (this test process's reaped
// children: the test is not parallel, so they are the run's servers only)
// is the truth. Read from the running servers' trees alone, the load's CPU
// was the last server's: under a third of it. The load runs 4 s: on a
// machine busy with the rest of the suite a server took a second to come
// back, and 2 s saw one replacement.
func TestProcessProbeCountsReplacedServers(t *testing.T) {
	exe := bin.Need(t)
	path := filepath.Join(t.TempDir(), "replaced.yaml")
	yaml := fmt.Sprintf(`name: replaced
target:
  stdio: {command: [%q, serve, --stdio, --burn-cpu]}
load: {rate: 4/1s, duration: 4s}
calls:
  - {tool: slow_task, arguments: {steps: 20, step_ms: 50}}
faults:
  - {kind: disconnect, probability: 1, after: 300ms, mode: kill}
orphans: {grace: 100ms, probes: [{process: {}}]}
`, exe)
	prep := prepareFile(t, path, yaml, []string{exe})
	before := childCPU(t)
	o := runLoad(t, context.Background(), prep.Plan)
	truth := childCPU(t) - before
	cpu := o.info.Orphans.CPU
	if o.info.Restarts < 2 || cpu == nil {
		t.Fatalf("%d restarts, process cpu %+v; want the servers replaced and measured", o.info.Restarts, cpu)
	}
	load := (cpu.LoadRate + cpu.IdleRate) * o.info.Duration.Seconds()
	t.Logf("%d restarts: the load's CPU %.3f s, the servers' own %.3f s in all", o.info.Restarts, load, truth)
	if load < 0.5*truth || load > 1.1*truth+0.05 {
		t.Errorf("the load's CPU %.3f s, the servers' own %.3f s (from their start to their exit): want at least half of it, never more", load, truth)
	}
	// The threads that computed are every server's, not the last one's
	// alone (threadledger.go): each server computed 300 ms at most, and
	// the sampler read it twice or more before its kill.
	b := cpu.CPUBound
	t.Logf("CPU-bound threads: %d, %.3f CPU-s over the load", b.Threads, b.OnCPUS)
	if b.OnCPUS < 0.4*load || b.Threads < 2 {
		t.Errorf("CPU-bound threads: %d, %.3f CPU-s; want the replaced servers' among them, at least 0.4 of the load's %.3f s", b.Threads, b.OnCPUS, load)
	}
}

// childCPU is the CPU-seconds of this process's reaped children.
func childCPU(t *testing.T) float64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// prepareFile writes yaml to path and prepares it, with the mcpchaos
// binary's argv (nil for none).
func prepareFile(t *testing.T, path, yaml string, self []string) *Prepared {
	t.Helper()
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	prep, err := Prepare(path, Overrides{}, self)
	if err != nil {
		t.Fatal(err)
	}
	return prep
}
