//go:build timing

package main

import (
	"math"
	"testing"
)

// TestTimingShardsAddUp: the four shards of shardScenario, merged,
// measure leaked call-seconds near the single run's, and their achieved
// rate is within 1% of the offered 40/s.
func TestTimingShardsAddUp(t *testing.T) {
	whole, merged, _, _ := shardsAddUp(t)
	// The leaked call-seconds are a measurement of each run's own timing:
	// the merge counts every shard's calls from their records on 10 ms
	// bins (series.Bins), the single run its own calls in flight at each
	// reading. The two runs differ (single runs alone gave 3.1 to 8.9;
	// merged against single 2.1/6.6 on a busy machine, 9.0/5.3 in CI),
	// so the test asks that the merge measures some, and not far more
	// than the single run; series and report tests check the arithmetic
	// (TestMergeSharedLeakFromCalls).
	const leaked = "cancellation.leaked_call_seconds"
	w, g := num(t, whole, leaked), num(t, merged, leaked)
	t.Logf("%s: merged shards %g, single run %g", leaked, g, w)
	if g <= 0 || g > 2*w+2 {
		t.Errorf("%s: merged shards %g, single run %g; want some, at most twice the single run's + 2", leaked, g, w)
	}
	offered, achieved := num(t, merged, "rate.offered"), num(t, merged, "rate.achieved")
	if math.Abs(achieved-offered) > offered/100 || math.Abs(offered-40) > 0.4 {
		t.Errorf("merged rate offered %g/s, achieved %g/s: want 40/s offered and achieved within 1%%", offered, achieved)
	}

}
