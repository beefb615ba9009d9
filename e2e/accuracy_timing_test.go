//go:build timing

package e2e

import (
	"bufio"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
)

// TestTimingVerdictAccuracySDK: the SDK's default (a handler that burns on
// after its stream closed) is a violation whose quiet windows' leftover
// estimate is within 30% of the server's own count: a measurement of CPU
// the server gets only on a machine with CPU to give.
func TestTimingVerdictAccuracySDK(t *testing.T) {
	accuracySDK(t, "burn/runs-on", false, report.StatusViolation)
}

// TestTimingVerdictAccuracyBuiltin: the same with the built-in target's
// burn_cpu and propagate_cancel false, against its leftover CPU counter.
func TestTimingVerdictAccuracyBuiltin(t *testing.T) {
	accuracyBuiltin(t, "burn/runs-on", "era=2026,burn_cpu=true,propagate_cancel=false", report.StatusViolation)
}

// TestTimingVerdictAccuracySleep: a handler that sleeps on after its
// cancel costs too little CPU for a process probe to see (under 0.05
// CPU-s per call-second), so the verdict is not_observable. The target is
// the real `mcpchaos serve` binary, built as users run it: a race-built
// target spends 0.03–0.08 CPU-s per call-second on its sleeping calls'
// wake-ups and request handling, which the probe takes for visible work
// (a false pass, seen in CI on the test binary as target).
func TestTimingVerdictAccuracySleep(t *testing.T) {
	url, metrics, pid := serveBinary(t, "--era", "2026", "--propagate-cancel=false")
	sc := runtest.Parse(t, fmt.Sprintf(builtinAccuracyScenario, url, pid, pid))
	plan := planOf(t, sc)
	quick(&plan)
	o := runPlan(t, sc, plan)
	if w := o.Sum.Cancellation.Windows; w.Count == 0 || w.Cancelled == 0 {
		t.Fatalf("windows: count %d, cancelled %d; want windows that cancelled calls", w.Count, w.Cancelled)
	}
	// Sleeping steps burn nothing: the target's leftover CPU counter
	// stays at zero over the whole run, so it is zero in every window.
	total := testutil.MustScrape(t, metrics)["mcpchaos_target_leftover_cpu_seconds_total"]
	checkEstimate(t, "sleep/runs-on", o, func(_, _ time.Time) float64 { return total }, report.StatusNotObservable)
	if total != 0 {
		t.Errorf("mcpchaos_target_leftover_cpu_seconds_total = %.3f for sleeping steps, want 0", total)
	}
}

// serveListening is serve's status line: its MCP and metrics URLs.
var serveListening = regexp.MustCompile(`MCP on (http://\S+), metrics on (http://\S+) `)

// serveBinary runs `mcpchaos serve --listen 127.0.0.1:0 args...` (the
// binary built without -race) in its own process and returns its MCP URL,
// its metrics URL and its pid; it stops with the test.
func serveBinary(t *testing.T, args ...string) (url, metrics string, pid int) {
	t.Helper()
	cmd := exec.Command(bin.Need(t), append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var seen []string
		for sc.Scan() {
			seen = append(seen, sc.Text())
			if serveListening.MatchString(sc.Text()) {
				lines <- sc.Text()
				for sc.Scan() { // keep its stderr drained
				}
				return
			}
		}
		lines <- strings.Join(seen, "\n")
	}()
	line := testutil.Receive(t, "serve's status line", lines)
	m := serveListening.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("mcpchaos serve printed no URLs: %q", line)
	}
	return m[1], m[2], cmd.Process.Pid
}
