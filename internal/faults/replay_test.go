package faults_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// replayScenario mixes several fault kinds over two tools. The slow calls
// last 600 ms, longer than any time a fault can be drawn for (up to
// 400 ms): a timed fault is skipped only when another fault on the same
// call ended it first, and skipped draws are compared too.
const replayScenario = `
name: replay
seed: %d
target: {builtin: {transport: http}}
load: {rate: 20/1s, duration: 1500ms}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: slow_task, weight: 3, arguments: {steps: 10, step_ms: 60}, progress: true}
  - {tool: echo, weight: 1, arguments: {text: hi}}
faults:
  - {kind: cancel, probability: 0.3, tools: [slow_task], after: "uniform(50ms, 400ms)"}
  - {kind: disconnect, probability: 0.2, tools: [slow_task], after: "uniform(20ms, 300ms)", mode: rst}
  - {kind: stall_read, probability: 0.3, tools: [slow_*], after: "uniform(10ms, 200ms)", for: 50ms}
  - {kind: cancel_race, probability: 0.2, tools: [slow_task], at: response}
  - {kind: malformed, probability: 0.4, tools: [echo], mode: params}
  - {kind: reissue}
orphans: {grace: 300ms}
`

// draw is one fault drawn for one call: its kind and, for a fault timed
// from the send, how long after the send it was scheduled.
type draw struct {
	kind   string
	timed  bool
	offset time.Duration
}

func (d draw) String() string {
	if d.timed {
		return d.kind + "@" + d.offset.String()
	}
	return d.kind
}

// timedKinds are the kinds replayScenario schedules with `after`.
var timedKinds = map[string]bool{"cancel": true, "disconnect": true, "stall_read": true}

// draws returns, by seq, the tool and the faults drawn for each first
// attempt (re-issues carry no faults), acted on or skipped.
func draws(t *testing.T, o *outcome) map[uint64][]draw {
	t.Helper()
	out := map[uint64][]draw{}
	for _, r := range o.Recs {
		if r.Retry != "" {
			continue
		}
		if _, dup := out[r.Seq]; dup {
			t.Fatalf("seq %d recorded twice", r.Seq)
		}
		ds := []draw{{kind: "tool " + r.Tool}}
		for _, f := range r.Faults {
			d := draw{kind: f.Kind, timed: timedKinds[f.Kind]}
			if d.timed {
				d.offset = time.Duration(f.ScheduledUs-r.SentUs) * time.Microsecond
			}
			ds = append(ds, d)
		}
		slices.SortFunc(ds, func(a, b draw) int {
			return cmp.Or(strings.Compare(a.kind, b.kind), cmp.Compare(a.offset, b.offset))
		})
		out[r.Seq] = ds
	}
	return out
}

// sameDraws compares two runs' draws call by call; offsets may differ by
// the microsecond rounding of the two offsets they are computed from.
func sameDraws(a, b map[uint64][]draw) (diffs []string) {
	for seq := uint64(0); seq < uint64(max(len(a), len(b))); seq++ {
		da, db := a[seq], b[seq]
		same := len(da) == len(db)
		for i := 0; same && i < len(da); i++ {
			d := da[i].offset - db[i].offset
			same = da[i].kind == db[i].kind && da[i].timed == db[i].timed && d >= -2*time.Microsecond && d <= 2*time.Microsecond
		}
		if !same {
			diffs = append(diffs, fmt.Sprintf("seq %d: %v vs %v", seq, da, db))
		}
	}
	return diffs
}

// TestSameSeedSameFaults: two runs with the same seed draw the same faults
// for the same calls (by seq: the tool, each fault's kind, and for a timed
// fault its offset from the send), whatever the timing of the runs; a run
// with another seed draws different ones.
func TestSameSeedSameFaults(t *testing.T) {
	t.Parallel()
	var a, b, c map[uint64][]draw
	t.Run("runs", func(t *testing.T) {
		for _, r := range []struct {
			name string
			seed int
			out  *map[uint64][]draw
		}{{"seed 43", 43, &a}, {"seed 43 again", 43, &b}, {"seed 44", 44, &c}} {
			t.Run(r.name, func(t *testing.T) {
				t.Parallel()
				o := runYAML(t, fmt.Sprintf(replayScenario, r.seed), opts{})
				for _, rec := range o.Recs {
					if rec.Outcome == results.Dropped {
						t.Fatalf("seq %d was dropped: the comparison needs every call", rec.Seq)
					}
				}
				*r.out = draws(t, o)
			})
		}
	})
	if t.Failed() {
		return
	}
	if len(a) != 30 || len(b) != 30 || len(c) != 30 {
		t.Fatalf("%d, %d and %d first attempts, want 30 each (20/s for 1.5 s)", len(a), len(b), len(c))
	}
	// The scenario must exercise what it compares.
	kinds := map[string]int{}
	for _, ds := range a {
		for _, d := range ds {
			kinds[d.kind]++
		}
	}
	for _, k := range []string{"cancel", "disconnect", "stall_read", "cancel_race", "malformed"} {
		if kinds[k] == 0 {
			t.Errorf("seed 43 drew no %s fault; the comparison would not cover it (drawn: %v)", k, kinds)
		}
	}
	if diffs := sameDraws(a, b); len(diffs) > 0 {
		t.Errorf("the same seed drew different faults for %d calls:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
	if diffs := sameDraws(a, c); len(diffs) == 0 {
		t.Errorf("seeds 43 and 44 drew the same faults for every call")
	}
}
