package engine

import (
	"context"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

// TestExtendLoad: at the load's end, a load whose automatic windows were
// all clean on a machine short of CPU goes on until the next window is
// due, up to 3 more windows and never longer in all than the load; a
// window that saw work, a machine with CPU to spare, windows asked for
// and a closed-model load end as planned.
func TestExtendLoad(t *testing.T) {
	every := 1500 * time.Millisecond
	starved := report.Windows{Count: 1, CutCount: 1, Starved: 1}
	for _, tc := range []struct {
		name     string
		plan     Load
		auto     bool
		windows  report.Windows
		before   int           // extensions already made
		next     time.Duration // when the next window is due, from the load's start
		want     bool
		wantLoad time.Duration // the load's length after the call
	}{
		{"one clean window on a starved machine", Load{Duration: 3 * time.Second}, true, starved, 0, 3 * time.Second, true, 3100 * time.Millisecond},
		{"the next window further on", Load{Duration: 3 * time.Second}, true, starved, 1, 4500 * time.Millisecond, true, 4600 * time.Millisecond},
		{"three extensions made", Load{Duration: 3 * time.Second}, true, starved, 3, 4500 * time.Millisecond, false, 3 * time.Second},
		{"longer in all than the load", Load{Duration: 3 * time.Second}, true, starved, 1, 6 * time.Second, false, 3 * time.Second},
		{"a window saw work", Load{Duration: 3 * time.Second}, true, report.Windows{Count: 1, CutCount: 1, Starved: 1, Above: 1}, 0, 3 * time.Second, false, 3 * time.Second},
		{"weak windows that add up", Load{Duration: 3 * time.Second}, true,
			report.Windows{Count: 2, CutCount: 2, Starved: 1, CutLeftoverCPUS: 0.05, CutThresholdS: 0.042}, 0, 3 * time.Second, false, 3 * time.Second},
		{"a machine with CPU to spare", Load{Duration: 3 * time.Second}, true, report.Windows{Count: 1, CutCount: 1}, 0, 3 * time.Second, false, 3 * time.Second},
		{"windows asked for", Load{Duration: 3 * time.Second}, false, starved, 0, 3 * time.Second, false, 3 * time.Second},
		{"a closed-model load", Load{Duration: 3 * time.Second, Concurrency: 4}, true, starved, 0, 3 * time.Second, false, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Plan{Load: tc.plan}
			p.Orphans.Windows = &Windows{Every: every, For: time.Second}
			r := &runner{plan: p, began: time.Now()}
			r.ext.on = extendable(p, tc.auto)
			r.ext.n = tc.before
			if tc.before > 0 {
				r.ext.extra = time.Duration(tc.before) * every
			}
			pr := &probeRun{r: r, windows: tc.windows}
			got := r.extendLoad(context.Background(), pr, r.began.Add(tc.next))
			if got != tc.want {
				t.Fatalf("extendLoad = %v, want %v", got, tc.want)
			}
			if tc.want && r.loadTotal() != tc.wantLoad {
				t.Errorf("load extended to %v, want %v", r.loadTotal(), tc.wantLoad)
			}
			var w report.Windows
			r.noteExtension(&w)
			if tc.want && (w.Extensions != tc.before+1 || w.Extended != "a quiet window saw the server starved of CPU") {
				t.Errorf("windows' summary: %d extensions (%q), want %d, why", w.Extensions, w.Extended, tc.before+1)
			}
		})
	}
}
