package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/mcp"
	"github.com/mcpchaos/mcpchaos/targetserver"
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
			start := time.Now().Add(500 * time.Millisecond)
			if tt.startAt {
				p.StartAt = start
			}
			// The other shard's last call: from 0.2 s before the load's
			// end to 1.3 s after it.
			other := make(chan error, 1)
			go func() {
				c, err := mcp.Dial(context.Background(), mcp.Config{HTTP: &mcp.HTTPConfig{URL: tg.URL}})
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
			if orph.Shared == nil || orph.Shared.AfterAll != tt.afterAll || orph.Shared.LeakProbe != "inflight" || noted == tt.startAt {
				t.Errorf("shared %+v, notes %q; want after_all %v, leak probe inflight, the --start-at note %v",
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
