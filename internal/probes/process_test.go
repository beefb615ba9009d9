//go:build linux

package probes

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// start runs a command in its own process group and kills the group when
// the test ends.
func start(t *testing.T, wait bool, name string, args ...string) *exec.Cmd {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if wait {
			_ = cmd.Wait()
		}
	})
	return cmd
}

// waitTree samples p until ok says yes, for at most testutil.WaitLong.
func waitTree(t *testing.T, p *Process, ok func(ProcessSample) bool) ProcessSample {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last ProcessSample
	var err error
	for {
		last, err = p.SampleTree(ctx)
		if err == nil && ok(last) {
			return last
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the process tree never got there: last %+v, %v", last, err)
		case <-tick.C:
		}
	}
}

func TestProcessChildren(t *testing.T) {
	t.Parallel()
	cmd := start(t, true, "sh", "-c", "sleep 30 & sleep 30 & wait")
	p := NewProcess(func() []int { return []int{cmd.Process.Pid} })
	got := waitTree(t, p, func(s ProcessSample) bool { return s.Children == 2 })
	if got.Processes != 3 || got.Threads < 3 || got.Zombies != 0 {
		t.Errorf("sh with two sleeps: %+v, want 3 processes, at least 3 threads, no zombies", got)
	}

	// Kill one sleep: sh reaps it, and the tree shrinks.
	sleeper := firstChild(t, cmd.Process.Pid)
	if err := syscall.Kill(sleeper, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	got = waitTree(t, p, func(s ProcessSample) bool { return s.Children == 1 })
	if got.Processes != 2 {
		t.Errorf("after killing one sleep: %+v, want 2 processes", got)
	}
}

// firstChild returns a child of pid, read from /proc.
func firstChild(t *testing.T, pid int) int {
	t.Helper()
	all, err := scanProc(t.Context(), "/proc")
	if err != nil {
		t.Fatal(err)
	}
	for child, st := range all {
		if st.ppid == pid {
			return child
		}
	}
	t.Fatalf("process %d has no children", pid)
	return 0
}

// TestProcessCPU is not parallel, so that the burner has a CPU to itself
// (the parallel tests wait until it is done).
func TestProcessCPU(t *testing.T) {
	// timeout bounds the burner's life even if the cleanup never runs.
	cmd := start(t, true, "timeout", "60", "sh", "-c", "while :; do :; done")
	p := NewProcess(func() []int { return []int{cmd.Process.Pid} })
	waitTree(t, p, func(s ProcessSample) bool { return s.Children == 1 && s.Processes == 2 })

	var probe Probe = p
	if probe.Name() != "process" {
		t.Errorf("Name = %q", probe.Name())
	}
	before, err := probe.Sample(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// Sampled until the burner has used 50 ms of CPU, however
	// long a busy machine keeps it from running; never more CPU than
	// every CPU's time plus a few ticks.
	t0 := time.Now()
	var burnt, elapsed float64
	testutil.Eventually(t, "the burner's CPU seconds to grow", func() bool {
		after, err := p.SampleTree(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		elapsed = time.Since(t0).Seconds()
		burnt = LeftoverCPU(ProcessSample{CPUSeconds: before}, after)
		if burnt > elapsed*float64(runtime.NumCPU())+0.05 {
			t.Fatalf("CPU seconds grew by %.3f in %.3f s", burnt, elapsed)
		}
		return burnt >= 0.05
	})
	t.Logf("the burner used %.2f s of CPU in %.2f s", burnt, elapsed)
}

func TestProcessZombieRoot(t *testing.T) {
	t.Parallel()
	// Started and never waited for until the end: it stays a zombie.
	cmd := start(t, false, "true")
	t.Cleanup(func() { _ = cmd.Wait() })
	p := NewProcess(func() []int { return []int{cmd.Process.Pid} })
	got := waitTree(t, p, func(s ProcessSample) bool { return s.Zombies == 1 })
	if got.Processes != 0 || got.Threads != 0 || got.Children != 0 {
		t.Errorf("a zombie root: %+v, want nothing alive", got)
	}
}

func TestProcessMissing(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	const never = 1<<22 + 1 // above PID_MAX_LIMIT: no process has it
	p := NewProcess(func() []int { return []int{os.Getpid(), never} })
	s, err := p.SampleTree(t.Context())
	if err != nil || s.Gone != 1 || s.Processes < 1 {
		t.Fatalf("SampleTree = %+v, %v; want the live root read and the missing one counted as gone", s, err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	self := NewProcess(func() []int { return []int{os.Getpid()} })
	if _, err := self.SampleTree(ctx); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("SampleTree with a cancelled context: %v", err)
	}
}

func TestProcessRestartedRoots(t *testing.T) {
	t.Parallel()
	first := start(t, true, "sleep", "30")
	second := start(t, true, "sh", "-c", "sleep 30 & wait")
	roots := []int{first.Process.Pid}
	p := NewProcess(func() []int { return roots })
	waitTree(t, p, func(s ProcessSample) bool { return s.Processes == 1 && s.Children == 0 })
	roots = []int{second.Process.Pid} // pids is asked again at every sample
	waitTree(t, p, func(s ProcessSample) bool { return s.Processes == 2 && s.Children == 1 })
}

// TestProcessExitedRoots: the CPU of roots that exited is added, but for
// the pids the sample read live, which count from /proc.
func TestProcessExitedRoots(t *testing.T) {
	t.Parallel()
	live := start(t, true, "sleep", "30")
	const gone = 1 << 30 // no such process
	exits := map[int]float64{live.Process.Pid: 100, gone: 1.5}
	p := NewProcess(func() []int { return []int{live.Process.Pid} }).WithExited(func(read func(int) bool) float64 {
		sum := 0.0
		for pid, cpu := range exits {
			if !read(pid) {
				sum += cpu
			}
		}
		return sum
	})
	s, err := p.SampleTree(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.CPUSeconds < 1.5 || s.CPUSeconds > 50 {
		t.Errorf("CPUSeconds = %v: want the exited root's 1.5 s added and the live root's exit figure left out", s.CPUSeconds)
	}
}

// TestProcessGoneRootStandsIn: a root gone from /proc whose exit is not
// yet known (its waiter still waits for a child holding its stderr) counts
// its last live reading, so the sum does not drop; and the exit figure is
// not added on top of it.
func TestProcessGoneRootStandsIn(t *testing.T) {
	t.Parallel()
	busy := start(t, false, "sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; sleep 30")
	pid := busy.Process.Pid
	var exitKnown atomic.Bool
	p := NewProcess(func() []int { return []int{pid} }).WithExited(func(read func(int) bool) float64 {
		if exitKnown.Load() && !read(pid) {
			return 100 // what the wait status would say
		}
		return 0
	})
	first := waitTree(t, p, func(s ProcessSample) bool { return s.CPUSeconds >= 0.05 })
	_ = syscall.Kill(pid, syscall.SIGKILL)
	_ = busy.Wait()
	second, err := p.SampleTree(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	exitKnown.Store(true) // listed still, its exit now known: the stand-in, not both
	third, err := p.SampleTree(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if second.Gone != 1 || second.CPUSeconds < first.CPUSeconds || third.CPUSeconds != second.CPUSeconds {
		t.Errorf("live %v s; gone %d with %v s, then %v s: want the last live reading to stand in, once",
			first.CPUSeconds, second.Gone, second.CPUSeconds, third.CPUSeconds)
	}
}

// TestProcessRunWait: more busy processes than CPUs wait in the run queue
// (schedstat), and a sleeping one does not.
func TestProcessRunWait(t *testing.T) {
	if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/schedstat"); err != nil {
		t.Skip("this kernel keeps no schedstat")
	}
	// One burner more than there are CPUs: some always wait. timeout
	// bounds each one's life even if the cleanup never runs.
	script := strings.Repeat("timeout 60 sh -c 'while :; do :; done' & ", runtime.NumCPU()+1) + "wait"
	burners := start(t, true, "sh", "-c", script)
	sleeper := start(t, true, "sleep", "60")
	busy := NewProcess(func() []int { return []int{burners.Process.Pid} })
	idle := NewProcess(func() []int { return []int{sleeper.Process.Pid} })
	before := waitTree(t, busy, func(s ProcessSample) bool { return s.Children >= 2*(runtime.NumCPU()+1) })
	idle0 := waitTree(t, idle, func(s ProcessSample) bool { return s.Processes == 1 })
	if !before.Sched.Known {
		t.Fatalf("Sched not known: %s", before.Sched.Err)
	}
	var waited float64
	testutil.Eventually(t, "the burners' run-queue wait to grow", func() bool {
		after, err := busy.SampleTree(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		waited, _ = WaitBetween(before, after)
		return waited >= 0.05
	})
	idle1, err := idle.SampleTree(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	slept, ok := WaitBetween(idle0, idle1)
	if !ok || slept >= waited {
		t.Errorf("a sleeping process waited %.3f s in the run queue (known %v), the burners %.3f s: want less", slept, ok, waited)
	}
	t.Logf("burners waited %.3f s, the sleeper %.6f s", waited, slept)
}
