package faults_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestStallRead: a reader that stops for a while mid-call does no harm to
// a correct server: the stalled calls complete ok, the summary says how the
// server coped for each of them (the built-in target over HTTP buffers into
// the socket, and the withheld progress arrives in a burst at resume), and
// nothing is left running.
func TestStallRead(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			o := runYAML(t, fmt.Sprintf(`
name: stall-read
seed: 23
target: {builtin: {transport: %s}}
load: {rate: 10/1s, duration: 1500ms}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: slow_task, arguments: {steps: 12, step_ms: 40}, progress: true}
faults:
  - {kind: stall_read, probability: 0.4, after: 60ms, for: 250ms}
orphans: {grace: 300ms}
`, transport), opts{})
			o.expectCorrect(t, "stall_read", report.StatusNotExercised)
			fs := o.fault("stall_read")
			t.Logf("faults.stall_read: injected %d, server %v", fs.Injected, fs.Server)
			inj := o.injected("stall_read")
			coped := 0
			for name, n := range fs.Server {
				switch name {
				case "buffered", "dropped", "errored", "blocked":
				default:
					t.Errorf("faults.stall_read.server.%s = %d: not a way of coping", name, n)
				}
				coped += n
			}
			if coped != fs.Injected || fs.Injected != len(inj) || len(inj) == 0 {
				t.Errorf("faults.stall_read: injected %d, server %v, records carry %d; want > 0 and each stall classified once",
					fs.Injected, fs.Server, len(inj))
			}
			if transport == "http" && fs.Server["buffered"] == 0 {
				t.Errorf("faults.stall_read.server = %v: the built-in target over HTTP buffers, want buffered > 0", fs.Server)
			}
			for _, rf := range inj {
				r, f := rf.rec, rf.f
				if !strings.HasPrefix(f.Detail, "paused reading for 250ms; server ") {
					t.Errorf("seq %d: detail %q", r.Seq, f.Detail)
				}
				// Every progress notification and the result still arrive.
				if r.Outcome != results.OK || r.Progress == nil || r.Progress.Count != 12 {
					t.Errorf("seq %d: outcome %q, progress %+v after a stalled read; want ok with all 12 notifications", r.Seq, r.Outcome, r.Progress)
				}
				// The result cannot have been read before reading resumed.
				if r.ResponseUs < f.ActualUs+250_000 {
					t.Errorf("seq %d: response read at %dµs, stall began at %dµs for 250ms", r.Seq, r.ResponseUs, f.ActualUs)
				}
			}
			if t.Failed() {
				o.dump(t)
			}
		})
	}
}

// TestStallReadAct: a stalled read pauses at once and resumes after `for`.
func TestStallReadAct(t *testing.T) {
	t.Parallel()
	c := &fakeCall{resumed: make(chan struct{})}
	f := actor(t, "{kind: stall_read, after: 1s, for: 80ms}")
	start := time.Now()
	detail, err := f.Act(c, faults.Info{Transport: "http"})
	if err != nil || detail != "paused reading for 80ms" || c.got() != "pause" {
		t.Fatalf("Act = %q, %v, did %q; want paused, at once", detail, err, c.got())
	}
	select {
	case <-c.resumed:
	case <-time.After(testutil.WaitLong):
		t.Fatal("never resumed")
	}
	if d := time.Since(start); d < 80*time.Millisecond {
		t.Errorf("resumed after %s, want 80ms", d)
	}
	if c.got() != "pause; resume" {
		t.Errorf("did %q", c.got())
	}
}
