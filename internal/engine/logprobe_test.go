package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
)

// doneOrCancelled matches both ends the built-in target logs, so that a
// call that stopped is seen at once and the probe need not wait.
const doneOrCancelled = `^call (?P<id>\d+) (done|cancelled)$`

// TestLogProbe: against the built-in target logging every finished call
// (log_calls), a log probe finds every call that ignored its cancel by id
// (leak_on_cancel 1), and none when every call stops (leak_on_cancel 0),
// over HTTP (a log file) and stdio (the servers' stderr). Each call is
// cut by the idle timeout at 200 ms and would run for 4 s: a leaked call
// ends long after its cancel + the 400 ms grace even when a starved
// client's idle timer fires a second or more late (at 1.5 s one such
// call ended within the grace of its late cancel: orphaned 4, want 5).
func TestLogProbe(t *testing.T) {
	t.Parallel()
	exe := bin.Need(t)
	slow := CallSpec{Tool: targetserver.ToolSlowTask, Arguments: json.RawMessage(`{"steps":1,"step_ms":4000}`)}
	orphans := Orphans{Grace: 400 * time.Millisecond, DrainMax: 20 * time.Second, SampleEvery: 50 * time.Millisecond,
		QuietWindow: 100 * time.Millisecond}
	for _, tc := range []struct {
		name  string
		stdio bool
		leak  float64
	}{
		{"http leaks", false, 1},
		{"http stops", false, 0},
		{"stdio leaks", true, 1},
		{"stdio stops", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var plan Plan
			o := orphans
			if tc.stdio {
				cfg := targetserver.Config{LeakOnCancel: tc.leak, LogCalls: "-"}
				plan = Plan{Name: "log", Seed: 1, LateWindow: 150 * time.Millisecond, Timeouts: Timeouts{Connect: testutil.WaitLong},
					Target: Target{Builtin: &Builtin{Transport: "stdio", Command: append([]string{exe, "serve", "--stdio"}, cfg.Args()...)}}}
				o.Probes = []ProbeSpec{{Log: &LogProbe{Stderr: true, Done: doneOrCancelled}}}
			} else {
				file := filepath.Join(t.TempDir(), "calls.log")
				tg := newTarget(t, targetserver.Config{LeakOnCancel: tc.leak, LogCalls: file})
				plan = httpPlan(tg.URL, Load{})
				plan.Target.PID = 0
				o.Probes = []ProbeSpec{{Log: &LogProbe{File: file, Done: doneOrCancelled}}}
			}
			plan.Load = Load{Rate: perSec(10), Duration: 500 * time.Millisecond}
			plan.Calls = []CallSpec{slow}
			plan.Timeouts = Timeouts{Idle: 200 * time.Millisecond, Max: 10 * time.Second}
			plan.Orphans = o
			res := runLoad(t, context.Background(), plan)

			var cut []int64
			for _, r := range res.recs {
				if r.CancelUs != 0 {
					cut = append(cut, r.ID)
				}
			}
			if len(cut) != 5 {
				t.Fatalf("%d calls cut, want 5: %v", len(cut), res.count())
			}
			slices.Sort(cut)
			l := res.info.Orphans.Log
			if l == nil {
				t.Fatalf("no log result; orphans %+v", res.info.Orphans)
			}
			if l.Matched != 5 || l.Unseen != 0 {
				t.Errorf("matched %d, unseen %d; want every cut call seen: %+v", l.Matched, l.Unseen, l)
			}
			want := []int64(nil)
			if tc.leak == 1 {
				want = cut
			}
			if l.Orphaned != len(want) || !slices.Equal(l.OrphanedIDs, want) {
				t.Errorf("orphaned %d %v, want %d %v (the cut calls' ids)", l.Orphaned, l.OrphanedIDs, len(want), want)
			}
			if got := res.info.Orphans.ByProbe[l.Probe]; got != float64(len(want)) {
				t.Errorf("by_probe[%q] = %v, want %d", l.Probe, got, len(want))
			}
			if len(res.info.Orphans.ProbeErrors) > 0 {
				t.Errorf("probe errors %v", res.info.Orphans.ProbeErrors)
			}
		})
	}
}

// TestDoneGroupsAgree: the scenario decoder accepts exactly the done
// regexps package probes can use.
func TestDoneGroupsAgree(t *testing.T) {
	for _, g := range []string{probes.GroupID, probes.GroupToken, "req", "ID"} {
		expr := `call (?P<` + g + `>\d+) done`
		_, perr := probes.ParseDone(expr)
		yaml := "target: {builtin: {}}\nload: {rate: 1/1s, duration: 1s}\ncalls: [{tool: echo}]\n" +
			"orphans: {probes: [{log: {file: x.log, done: '" + expr + "'}}]}\n"
		_, serr := scenarios.Parse("x.yaml", []byte(yaml))
		if (perr == nil) != (serr == nil) {
			t.Errorf("group %q: probes says %v, the scenario decoder %v", g, perr, serr)
		}
	}
}

// failingFile is a results file whose every write fails (a full disk).
type failingFile struct{}

func (failingFile) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }
func (failingFile) Close() error              { return nil }

// TestHeaderWriteFailureClosesLogs: a run whose results header cannot be
// written ends with that error and leaves no log probe reading: its file
// is closed (no descriptor of this process still reads it; the in-process
// target's own, for writing, stays).
func TestHeaderWriteFailureClosesLogs(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "calls.log")
	tg := newTarget(t, targetserver.Config{LogCalls: file})
	plan := httpPlan(tg.URL, Load{Rate: perSec(10), Duration: 500 * time.Millisecond}, echoCall)
	plan.Orphans = Orphans{Grace: 100 * time.Millisecond, DrainMax: time.Second, SampleEvery: 50 * time.Millisecond,
		Probes: []ProbeSpec{{Log: &LogProbe{File: file, Done: doneOrCancelled}}}}
	w := results.NewWriter(failingFile{}, false, time.Hour)
	_ = w.Write(strings.Repeat("x", 128<<10)) // past the buffer: the write fails, and so will the next
	defer w.Close()
	if _, err := Run(context.Background(), plan, Options{Writer: w, Version: "test"}); err == nil {
		t.Fatal("the run went on without its results header")
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	for _, fd := range fds {
		target, _ := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		info, _ := os.ReadFile(filepath.Join("/proc/self/fdinfo", fd.Name()))
		if target == file && readOnly(string(info)) {
			t.Fatalf("the log probe's file %s is still open (fd %s) after the run ended", file, fd.Name())
		}
	}
}

// readOnly reports whether an fdinfo's flags (octal) open the file for
// reading only.
func readOnly(fdinfo string) bool {
	for line := range strings.Lines(fdinfo) {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			return err == nil && flags&3 == uint64(os.O_RDONLY)
		}
	}
	return false
}
