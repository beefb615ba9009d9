package main

import (
	"bytes"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRunRealtime: `mcpchaos run --realtime` (the real binary) puts its
// threads at SCHED_FIFO while the load runs, threads started later too
// (those it had at one look are all real-time at a look 400 ms later, past
// the 250 ms re-raise), and not the stdio server it starts (reset on
// fork); the run passes. Where the kernel refuses real-time priority (no
// root, no CAP_SYS_NICE), the run says so on stderr and still passes. Not
// parallel: a real-time process would disturb the package's timed tests.
func TestRunRealtime(t *testing.T) {
	exe := bin.Need(t)
	path := writeScenario(t, "rt.yaml", `name: rt
target: {builtin: {transport: stdio}}
load: {rate: 20/1s, duration: 4s}
calls: [{tool: slow_task, arguments: {steps: 5, step_ms: 50}, progress: true}]
faults: [{kind: cancel, probability: 0.3, after: 100ms}]
`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "run", "-q", "--realtime", path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	server := map[int]uint32{}
	for deadline := time.Now().Add(10 * time.Second); len(server) == 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond) // until the stdio server runs
		for _, child := range children(cmd.Process.Pid) {
			maps.Copy(server, policies(child))
		}
	}
	first := policies(cmd.Process.Pid)
	time.Sleep(400 * time.Millisecond)
	second := policies(cmd.Process.Pid)
	err := cmd.Wait()
	if strings.Contains(stderr.String(), "the kernel refused SCHED_FIFO") {
		if err != nil {
			t.Fatalf("run exited %v after a refused --realtime:\n%s", err, stderr.String())
		}
		t.Skipf("no real-time priority here: %s", stderr.String())
	}
	if err != nil || !strings.Contains(stdout.String(), "Result        PASS") || strings.Contains(stderr.String(), "back to normal priority") {
		t.Fatalf("run --realtime: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if len(first) == 0 || len(server) == 0 {
		t.Fatalf("threads read: ours %v, the server's %v", first, server)
	}
	for tid := range first {
		if p, ok := second[tid]; ok && p != unix.SCHED_FIFO {
			t.Errorf("our thread %d has policy %d during the load, want SCHED_FIFO", tid, p)
		}
	}
	for tid, p := range server {
		if p != unix.SCHED_NORMAL {
			t.Errorf("the stdio server's thread %d has policy %d, want the normal policy (reset on fork)", tid, p)
		}
	}
}

// policies reads the scheduling policy of each thread of pid.
func policies(pid int) map[int]uint32 {
	out := map[int]uint32{}
	tasks, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if attr, err := unix.SchedGetAttr(tid, 0); err == nil {
			out[tid] = attr.Policy
		}
	}
	return out
}

// children lists pid's child processes.
func children(pid int) []int {
	var out []int
	tasks, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	for _, t := range tasks {
		b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "task", t.Name(), "children"))
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// TestOverBudget: real-time priority is kept up to a whole CPU a second.
func TestOverBudget(t *testing.T) {
	for _, tc := range []struct {
		name string
		rate float64
		want bool
	}{
		{"a client at 1,000 calls/s", 0.45, false},
		{"a whole CPU", 1.0, false},
		{"more than a CPU", 1.2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := overBudget(tc.rate); got != tc.want {
				t.Errorf("overBudget(%v) = %v, want %v", tc.rate, got, tc.want)
			}
		})
	}
}
