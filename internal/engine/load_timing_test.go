//go:build timing

package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// TestTimingPacingEndToEnd: the first call is scheduled within a second of
// the start, and a tick goes out at its intended time, not one interval
// later (a pacer that waited for hit n+1 would send every call at least
// 10 ms after the time it carries). The minimum, not a percentile: a busy
// machine delays many sends, but not all of them.
func TestTimingPacingEndToEnd(t *testing.T) {
	recs, o := pacingEndToEnd(t)
	if d := recs[0].Scheduled.Sub(o.info.Started); d > time.Second {
		t.Errorf("first call scheduled %s after the start", d)
	}
	var sent []int64
	for _, r := range recs {
		if r.SentUs > 0 {
			sent = append(sent, r.SentUs)
		}
	}
	if len(sent) == 0 {
		t.Fatal("no call was sent")
	}
	if least := time.Duration(slices.Min(sent)) * time.Microsecond; least >= 10*time.Millisecond {
		t.Errorf("every call was sent at least %s after its intended time; want some within the 10ms interval", least)
	}
}

// TestTimingGracefulStopEnds: a graceful stop of 200 ms ends 2 s calls
// scheduled over 1 s: Run returns within 5 s.
func TestTimingGracefulStopEnds(t *testing.T) {
	tg := newTarget(t, targetserver.Config{})
	o := runLoad(t, context.Background(), httpPlan(tg.URL, Load{Rate: perSec(5), Duration: time.Second, GracefulStop: 200 * time.Millisecond}, slowTask(20, 100)))
	if o.elapsed > 5*time.Second {
		t.Errorf("Run took %s, want under 5s", o.elapsed)
	}
}
