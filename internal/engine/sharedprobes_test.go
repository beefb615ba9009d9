package engine

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// TestSharedServerProbes: a shard of a server the other shards share reads
// its probes only once every shard's calls are over. Here the other shard
// is a call that starts just before the load's end and runs 1.5 s, within
// timeouts.max (2 s): this shard's own calls (echo) end at once, and a
// reading a grace after them would count the other shard's call as an
// orphan. With --start-at the reading waits for the end of the load plus
// the cap, and finds nothing; without it the shard says that it cannot
// know.
func TestSharedServerProbes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		startAt  bool
		afterAll bool
	}{
		{name: "with --start-at", startAt: true, afterAll: true},
		{name: "without --start-at"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, targetserver.Config{})
			p := httpPlan(tg.URL, Load{Rate: perSec(10), Duration: time.Second}, echoCall)
			p.Timeouts.Max = 2 * time.Second
			p.Orphans = Orphans{Grace: 200 * time.Millisecond, QuietWindow: 100 * time.Millisecond, DrainMax: 100 * time.Millisecond,
				Probes: []ProbeSpec{{Name: "inflight", Metric: &MetricProbe{URL: tg.MetricsURL, Name: "mcpchaos_target_inflight"}}}}
			p, err := p.ForShard(Shard{Index: 0, Count: 2})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now().Add(2 * time.Second) // the shard's set-up, on a busy machine
			if tt.startAt {
				p.StartAt = start
			}
			// The other shard's last call: from 0.2 s before the load's
			// end to 1.3 s after it.
			other := make(chan error, 1)
			go func() {
				c, err := client.Dial(context.Background(), client.Config{HTTP: &client.HTTPConfig{URL: tg.URL}})
				if err != nil {
					other <- err
					return
				}
				defer c.Close(context.Background())
				<-time.After(time.Until(start.Add(800 * time.Millisecond)))
				_, err = c.CallTool(context.Background(), targetserver.ToolSlowTask, json.RawMessage(`{"steps":15,"step_ms":100}`))
				other <- err
			}()
			o := runLoad(t, context.Background(), p)
			if err := <-other; err != nil {
				t.Fatalf("the other shard's call: %v", err)
			}
			orph := o.info.Orphans
			noted := slices.ContainsFunc(orph.ProbeErrors, func(e string) bool { return strings.Contains(e, "needs --start-at") })
			if orph.Shared == nil || orph.Shared.AfterAll != tt.afterAll || orph.Shared.LeakProbe != "inflight" ||
				!slices.Equal(orph.Shared.ServerProbes, []string{"inflight"}) || noted == tt.startAt {
				t.Errorf("shared %+v, notes %q; want after_all %v, leak probe inflight read from the server, the --start-at note %v",
					orph.Shared, orph.ProbeErrors, tt.afterAll, !tt.startAt)
			}
			if tt.startAt && orph.Orphaned != 0 {
				t.Errorf("orphaned %g: the probe was read while the other shard's call still ran", orph.Orphaned)
			}
			if orph.LeakedCallSeconds != 0 {
				t.Errorf("leaked call-seconds %g measured by a shard: its probe counts the other shard's calls", orph.LeakedCallSeconds)
			}
		})
	}
}

// reissueFault is a fault that re-issues a call n times.
type reissueFault int

func (reissueFault) Kind() string                                     { return "reissue" }
func (reissueFault) Draw(*rand.Rand, faults.Info) (faults.When, bool) { return faults.When{}, false }
func (f reissueFault) Reissues() int                                  { return int(f) }

// TestCallBound: the longest a call lasts past the load's end is the
// graceful stop, or the cap of each attempt when shorter; 1 s more for the
// last cancels.
func TestCallBound(t *testing.T) {
	for _, tt := range []struct {
		name     string
		graceful time.Duration
		max      time.Duration
		faults   []faults.Fault
		want     time.Duration
	}{
		{name: "the cap is shorter", graceful: 30 * time.Second, max: 10 * time.Second, want: 11 * time.Second},
		{name: "the graceful stop is shorter", graceful: 5 * time.Second, max: 10 * time.Second, want: 6 * time.Second},
		{name: "no cap", graceful: 30 * time.Second, want: 31 * time.Second},
		{name: "re-issues capped again", graceful: time.Minute, max: 10 * time.Second, faults: []faults.Fault{reissueFault(2)}, want: 31 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := Plan{Load: Load{GracefulStop: tt.graceful}, Timeouts: Timeouts{Max: tt.max}, Faults: tt.faults}
			if got := p.callBound(); got != tt.want {
				t.Errorf("callBound = %s, want %s", got, tt.want)
			}
		})
	}
}
