package stepserver

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

func TestJudge(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	file := filepath.Join(t.TempDir(), "truth")
	// Call 1 stopped 50 ms after its cut (at 100 ms); call 2 ran on to
	// 900 ms; call 3 was never cut; call 4 ended before its cut.
	lines := "" +
		itoa(ms(60)) + " p1 step 1\n" + itoa(ms(150)) + " p1 stop 2\n" +
		itoa(ms(60)) + " p2 step 1\n" + itoa(ms(900)) + " p2 step 2\n" +
		itoa(ms(2000)) + " p3 step 9\n" +
		itoa(ms(50)) + " p4 step 1\n" +
		"123 p2 step" // torn
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	last, err := LastSteps(file)
	if err != nil {
		t.Fatal(err)
	}
	rec := func(id int64, cancelMs int) results.Record {
		return results.Record{ID: id, Scheduled: t0, CancelUs: int64(cancelMs) * 1000}
	}
	recs := []results.Record{rec(1, 100), rec(2, 100), rec(3, 0), rec(4, 100)}
	for _, tc := range []struct {
		name   string
		grace  time.Duration
		leaked int
		max    time.Duration
	}{
		{"grace 300ms: call 2 ran on", 300 * time.Millisecond, 1, 800 * time.Millisecond},
		{"grace 1s: nothing past it", time.Second, 0, 0},
		{"no grace: the stop line is no step", 0, 1, 800 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := Judge(recs, last, tc.grace, false)
			if j.Cut != 3 || len(j.Leaked) != tc.leaked || j.MaxAfter != tc.max || j.Violation() != (tc.leaked > 0) {
				t.Errorf("Judge = %+v, want 3 cut, %d leaked, max %v", j, tc.leaked, tc.max)
			}
			if over := j.MaxAfter - tc.grace; j.Violation() && (j.Marginal(tc.grace, over) || !j.Marginal(tc.grace, over+time.Millisecond)) {
				t.Errorf("a run-on %v past a %v grace: marginal within %v %v, within 1 ms more %v; want false, true",
					over, tc.grace, over, j.Marginal(tc.grace, over), j.Marginal(tc.grace, over+time.Millisecond))
			}

		})
	}
}

// TestJudgeLegacy: in a 2025 era a disconnected call that ran on is no
// leak (a disconnect is not a cancel there) but is named as Legacy; in
// 2026-07-28 it is a leak like a cancelled one.
func TestJudgeLegacy(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	last := map[string]time.Time{"p1": ms(900), "p2": ms(900), "p3": ms(150)}
	recs := []results.Record{
		{ID: 1, Scheduled: t0, CancelUs: 100_000, Outcome: results.Disconnected},
		{ID: 2, Scheduled: t0, CancelUs: 100_000, Outcome: results.Cancelled},
		{ID: 3, Scheduled: t0, CancelUs: 100_000, Outcome: results.Disconnected},
	}
	for _, tc := range []struct {
		name           string
		era2025        bool
		leaked, legacy []int64
	}{
		{"2025: the disconnect that ran on is legacy", true, []int64{2}, []int64{1}},
		{"2026: a disconnect is a cancel", false, []int64{1, 2}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := Judge(recs, last, 300*time.Millisecond, tc.era2025)
			if j.Cut != 3 || !slices.Equal(j.Leaked, tc.leaked) || !slices.Equal(j.Legacy, tc.legacy) {
				t.Errorf("Judge = %+v; want 3 cut, leaked %v, legacy %v", j, tc.leaked, tc.legacy)
			}
		})
	}
}

func itoa(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 10) }
