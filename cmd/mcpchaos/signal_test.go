//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
)

// slowScenario is 30 s of 5 s calls: any interrupt finds calls in flight.
// The target is the built-in one, started by the test (slowTarget) so that
// the test can see when calls are running instead of sleeping a guess;
// the orphan drain watches its in-flight gauge as it would the builtin's.
const slowScenario = `name: ctrl-c
seed: 11
target:
  http: {url: %q}
load: {rate: 10/1s, duration: 30s}
timeouts: {idle: 10s, max: 20s}
calls:
  - {tool: slow_task, arguments: {steps: 50, step_ms: 100}, progress: true}
orphans:
  grace: 300ms%s
  probes:
    - metric: {url: %q, name: mcpchaos_target_inflight}
checks:
  - calls.total >= 1
`

// slowTarget starts the built-in target for slowScenario and returns it
// with the scenario; drain is extra orphans lines ("\n  drain_max: 20s").
func slowTarget(t *testing.T, cfg targetserver.Config, drain string) (*targetserver.Running, string) {
	t.Helper()
	r, err := targetserver.StartHTTP(context.Background(), cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r, fmt.Sprintf(slowScenario, r.URL, drain, r.MetricsURL)
}

// waitStarted waits until the target has started n calls.
func waitStarted(t *testing.T, p *proc, tg *targetserver.Running, n int64) {
	t.Helper()
	testutil.Eventually(t, fmt.Sprintf("the target to start %d calls", n), func() bool {
		p.exitedEarly(t)
		return tg.Server.Stats().Started >= n
	})
}

// proc is a running mcpchaos process.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr *testutil.LockedWriter
	done           chan struct{}
	err            error
}

// startRun starts `mcpchaos run` on a scenario, with the results file and
// JSON summary in dir, and waits until the load has begun (the results
// header is on disk).
func startRun(t *testing.T, scenario, dir string) *proc {
	t.Helper()
	exe := bin.Need(t)
	path := filepath.Join(dir, "slow.yaml")
	if err := os.WriteFile(path, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.jsonl")
	p := &proc{cmd: exec.Command(exe, "run", path, "-q", "--output", out, "--summary-json", filepath.Join(dir, "s.json")),
		stdout: &testutil.LockedWriter{W: new(bytes.Buffer)}, stderr: &testutil.LockedWriter{W: new(bytes.Buffer)}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	testutil.Eventually(t, "the run to write its results header", func() bool {
		p.exitedEarly(t)
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), `"type":"header"`)
	})
	return p
}

// exitedEarly fails the test when the process has already exited.
func (p *proc) exitedEarly(t *testing.T) {
	t.Helper()
	select {
	case <-p.done:
		t.Fatalf("mcpchaos run exited early: %v\nstdout: %s\nstderr: %s", p.err, p.stdout, p.stderr)
	default:
	}
}

func (p *proc) signal(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
}

// wait waits up to d for the process to exit and returns its exit code.
func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		t.Fatalf("still running %s after the interrupt\nstdout: %s\nstderr: %s", d, p.stdout, p.stderr)
	}
	var exit *exec.ExitError
	if p.err != nil && !errors.As(p.err, &exit) {
		t.Fatalf("wait: %v", p.err)
	}
	if st, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && st.Signaled() {
		t.Fatalf("killed by %v, not an exit\nstderr: %s", st.Signal(), p.stderr)
	}
	return p.cmd.ProcessState.ExitCode()
}

// TestCtrlC: the first interrupt stops the load, cancels what is in
// flight, still writes every output and the summary, and then exits 130.
func TestCtrlC(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tg, scenario := slowTarget(t, targetserver.Config{}, "")
	p := startRun(t, scenario, dir)
	waitStarted(t, p, tg, 3)
	sent := time.Now()
	p.signal(t)
	code := p.wait(t, testutil.WaitLong)
	t.Logf("exited %s after the interrupt with %d", time.Since(sent).Round(time.Millisecond), code)
	if code != 130 {
		t.Fatalf("exit code %d, want 130 (interrupted, once every output is written)\nstdout: %s\nstderr: %s", code, p.stdout, p.stderr)
	}
	stdout, stderr := p.stdout.String(), p.stderr.String()
	for _, want := range []string{"Scenario      ctrl-c", "INTERRUPTED", "Result"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the summary does not say %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "interrupted: stopping load") {
		t.Errorf("stderr does not acknowledge the interrupt: %q", stderr)
	}

	s := readJSON(t, filepath.Join(dir, "s.json"))
	if s["interrupted"] != true {
		t.Errorf("JSON summary: interrupted %v", s["interrupted"])
	}
	f, err := results.Open(filepath.Join(dir, "r.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Torn || f.Header.Scenario != "ctrl-c" || f.Trailer == nil || !f.Trailer.Interrupted {
		t.Fatalf("results file: torn %v, header %q, trailer %+v; want complete, ending in an interrupted trailer", f.Torn, f.Header.Scenario, f.Trailer)
	}
	if total := int(num(t, s, "calls.total")); len(f.Records) != total || total == 0 || total > 100 {
		t.Errorf("%d records, the summary counts %d calls", len(f.Records), total)
	}
	// Every call was in flight (5 s long) and was cancelled by the interrupt.
	for _, r := range f.Records {
		if r.Outcome != results.Cancelled || r.CancelReason != "interrupted" {
			t.Errorf("seq %d: outcome %q, reason %q; want cancelled, interrupted", r.Seq, r.Outcome, r.CancelReason)
		}
	}
}

// TestCtrlCTwice: a second interrupt exits at once with status 130, even
// while the first is still waiting for leaked work to drain.
func TestCtrlCTwice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Calls that ignore their cancel keep the target's in-flight gauge up,
	// so the orphan drain after the first interrupt lasts up to 20 s. The
	// wait for the exit is generous for a busy machine; that the second
	// interrupt ended the run is what stderr says ("interrupted twice").
	tg, scenario := slowTarget(t, targetserver.Config{LeakOnCancel: 1}, "\n  drain_max: 20s")
	p := startRun(t, scenario, dir)
	waitStarted(t, p, tg, 1)
	p.signal(t)
	testutil.Eventually(t, "the first interrupt to be acknowledged", func() bool {
		return strings.Contains(p.stderr.String(), "interrupted: stopping load")
	})
	second := time.Now()
	p.signal(t)
	code := p.wait(t, 45*time.Second)
	if code != 130 {
		t.Fatalf("exit code %d after two interrupts, want 130\nstdout: %s\nstderr: %s", code, p.stdout, p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "interrupted twice") {
		t.Errorf("stderr does not say why it exited: %q", p.stderr)
	}
	t.Logf("exited %s after the second interrupt", time.Since(second).Round(time.Millisecond))
	// Cut short, the results file is still readable: the header, and no
	// trailer.
	f, err := results.Open(filepath.Join(dir, "r.jsonl"))
	if err != nil {
		t.Fatalf("the results file of a run that exited at once does not read: %v", err)
	}
	if f.Header.Scenario != "ctrl-c" || f.Trailer != nil {
		t.Errorf("results file: header %q, trailer %+v; want the header and no trailer", f.Header.Scenario, f.Trailer)
	}
}

// TestServeSignal: `mcpchaos serve` stopped by SIGTERM or SIGINT says it
// stops the server (not run's "stopping load, draining, writing outputs")
// and exits 0.
func TestServeSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			exe := bin.Need(t)
			p := &proc{cmd: exec.Command(exe, "serve", "--listen", "127.0.0.1:0"),
				stdout: &testutil.LockedWriter{W: new(bytes.Buffer)}, stderr: &testutil.LockedWriter{W: new(bytes.Buffer)}, done: make(chan struct{})}
			p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() {
				p.err = p.cmd.Wait()
				close(p.done)
			}()
			t.Cleanup(func() {
				_ = p.cmd.Process.Kill()
				<-p.done
			})
			testutil.Eventually(t, "serve to print where it listens", func() bool {
				p.exitedEarly(t)
				return strings.Contains(p.stderr.String(), "MCP on http://")
			})
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(t, testutil.WaitLong); code != 0 {
				t.Errorf("exit %d after %v, want 0\nstderr: %s", code, sig, p.stderr)
			}
			stderr := p.stderr.String()
			if !strings.Contains(stderr, "mcpchaos serve: interrupted: stopping the server") || strings.Contains(stderr, "stopping load") {
				t.Errorf("stderr after %v does not say the server stops:\n%s", sig, stderr)
			}
		})
	}
}

// drainScenario is a 1 s load of 60 s calls with a 60 s graceful stop: the
// run spends a minute in the drain unless interrupted.
const drainScenario = `name: ctrl-c
seed: 11
target:
  http: {url: %q}
load: {rate: 4/1s, duration: 1s, graceful_stop: 60s}
timeouts: {idle: 100s, max: 100s}
calls:
  - {tool: slow_task, arguments: {steps: 600, step_ms: 100}, progress: true}
orphans:
  grace: 300ms
  drain_max: 60s
  probes:
    - metric: {url: %q, name: mcpchaos_target_inflight}
`

// TestCtrlCDuringDrain: an interrupt after the load, while the graceful
// stop waits for the calls in flight, ends the drain at once (the calls
// are cancelled as interrupted), the probes get a short final read, and
// the run exits 130 with a summary and a results trailer that say
// interrupted.
func TestCtrlCDuringDrain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tg, err := targetserver.StartHTTP(context.Background(), targetserver.Config{}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Close() })
	p := startRun(t, fmt.Sprintf(drainScenario, tg.URL, tg.MetricsURL), dir)
	out := filepath.Join(dir, "r.jsonl")
	// The drain has begun when a probe sample is dated well after the
	// load's 1 s.
	testutil.Eventually(t, "a probe sample taken after the load", func() bool {
		p.exitedEarly(t)
		f, err := results.Open(out)
		if err != nil || len(f.Samples) == 0 {
			return false
		}
		return f.Samples[len(f.Samples)-1].T.Sub(f.Header.Started) > 1500*time.Millisecond
	})
	if n := tg.Server.Stats().Started; n < 1 {
		t.Fatalf("the target started %d calls: nothing in flight to drain", n)
	}
	sent := time.Now()
	p.signal(t)
	code := p.wait(t, 45*time.Second) // the drain lasts 60 s unless cut
	t.Logf("exited %s after the interrupt with %d", time.Since(sent).Round(time.Millisecond), code)
	if code != 130 {
		t.Fatalf("exit code %d, want 130\nstdout: %s\nstderr: %s", code, p.stdout, p.stderr)
	}
	if !strings.Contains(p.stdout.String(), "INTERRUPTED") {
		t.Errorf("the summary does not say INTERRUPTED:\n%s", p.stdout)
	}
	s := readJSON(t, filepath.Join(dir, "s.json"))
	if s["interrupted"] != true {
		t.Errorf("JSON summary: interrupted %v, want true", s["interrupted"])
	}
	f, err := results.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Trailer == nil || !f.Trailer.Interrupted {
		t.Fatalf("results trailer %+v, want one that says interrupted", f.Trailer)
	}
	if len(f.Records) == 0 {
		t.Fatal("no records")
	}
	for _, r := range f.Records {
		if r.Outcome != results.Cancelled || r.CancelReason != "interrupted" {
			t.Errorf("seq %d: outcome %q, reason %q; want cancelled, interrupted", r.Seq, r.Outcome, r.CancelReason)
		}
	}
}
