package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/results"
)

// TestLogProbeVerdict: orphans a log probe found by id make the
// cancellation verdict a violation that names them; a log probe that saw
// every cancelled call end in time passes.
func TestLogProbeVerdict(t *testing.T) {
	cancel := func() *results.Record { return call(0, results.Cancelled, cancelAt(100), fault("cancel", 10)) }
	tests := []struct {
		name string
		log  LogOrphans
		want string
		has  []string
	}{
		{"orphans by id", LogOrphans{Probe: "log stderr", Lines: 9, Matched: 3, Orphaned: 2, OrphanedIDs: []int64{4, 17}, MaxAfterCancelMs: 4900},
			StatusViolation, []string{"log stderr: 2 calls ended later than cancel + grace, up to 4.9s after the cancel (ids 4, 17)"}},
		{"more orphans than ids", LogOrphans{Probe: "log x.log", Matched: 200, Orphaned: 150, OrphanedIDs: []int64{1, 2}, MaxAfterCancelMs: 100},
			StatusViolation, []string{"150 calls", "(ids 1, 2, ...)"}},
		{"every call stopped in time", LogOrphans{Probe: "log stderr", Lines: 9, Matched: 3}, StatusPass, []string{"no work seen"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := aggregate(cancel(), cancel(), cancel())
			l := tt.log
			a.SetOrphans(Orphans{ByProbe: map[string]float64{l.Probe: float64(l.Orphaned)}, Log: &l})
			s := a.Summary(testMeta("2026-07-28"))
			v := verdictOf(t, s, AreaCancellation)
			if v.Status != tt.want {
				t.Errorf("status = %q, want %q (evidence %q)", v.Status, tt.want, v.Evidence)
			}
			for _, h := range tt.has {
				if !strings.Contains(v.Evidence, h) {
					t.Errorf("evidence %q lacks %q", v.Evidence, h)
				}
			}
			b, err := json.Marshal(s.Cancellation.Log)
			if err != nil || !strings.Contains(string(b), `"orphaned":`+jsonInt(l.Orphaned)) {
				t.Errorf("cancellation.log = %s, %v", b, err)
			}
		})
	}
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestLogKeysAbsentWithoutLogProbe: the summary JSON has no
// cancellation.log without a log probe, and a check on it fails, saying
// so, rather than read 0.
func TestLogKeysAbsentWithoutLogProbe(t *testing.T) {
	s := aggregate(call(0, results.OK, resp(5))).Summary(testMeta("2026-07-28"))
	b, _ := json.Marshal(s.Cancellation)
	if strings.Contains(string(b), `"log"`) {
		t.Errorf("cancellation = %s", b)
	}
	s.Evaluate([]Check{{Key: "cancellation.log.orphaned", Op: "==", Value: 0}}, true)
	if s.Pass || len(s.Checks) != 1 || !strings.Contains(s.Checks[0].Reason, "no cancellation.log section") {
		t.Errorf("check results %+v", s.Checks)
	}
}
