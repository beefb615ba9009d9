package report

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestMergeSharedReadings: the probe readings of shards that shared one
// server are the server's, so their merge takes the largest; a log
// probe's, each shard's own calls, add up, as do those of shards with
// servers of their own (stdio) and of files written before the shared
// mark existed.
func TestMergeSharedReadings(t *testing.T) {
	shared := func(after bool, base float64) *SharedServer {
		return &SharedServer{AfterAll: after, LeakProbe: "gauge", Baseline: base, ServerProbes: []string{"gauge", "process"}}
	}
	windows := Windows{Count: 2, Cancelled: 3, LeftoverCPUS: 0.5, MeasuredMs: 2000, Above: 1, List: []Window{{StartMs: 1000}, {StartMs: 3000}}}
	reading := func(n, cpu float64, s *SharedServer) RunInputs {
		return RunInputs{Orphans: Orphans{Orphaned: n, ByProbe: map[string]float64{"gauge": n, "process": n + 1, "log": 2},
			LeftoverCPUSeconds: cpu, Drained: true, Shared: s, Windows: windows}}
	}
	// A trailer of an older mcpchaos: no "shared" member.
	var old RunInputs
	if err := json.Unmarshal([]byte(`{"orphans":{"orphaned":3,"by_probe":{"gauge":3,"process":4,"log":2},"leftover_cpu_s":0.5,"drained":true}}`), &old); err != nil {
		t.Fatal(err)
	}
	old.Orphans.Windows = windows
	for _, tt := range []struct {
		name          string
		in            []RunInputs
		orphaned, cpu float64
		shared        *SharedServer
	}{
		{name: "stdio shards add up", in: []RunInputs{reading(3, 0.5, nil), reading(2, 0.25, nil)}, orphaned: 5, cpu: 0.75},
		{name: "older files add up", in: []RunInputs{old, old}, orphaned: 6, cpu: 1},
		{name: "a shared server: the largest reading", in: []RunInputs{reading(3, 0.5, shared(true, 1)), reading(2, 0.75, shared(true, 2)),
			reading(3, 0.25, shared(true, 0))}, orphaned: 3, cpu: 0.75, shared: shared(true, 2)},
		{name: "read after all only if every shard did", in: []RunInputs{reading(1, 0, shared(true, 0)), reading(1, 0, shared(false, 0))},
			orphaned: 1, shared: shared(false, 0)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := MergeInputs(tt.in).Orphans
			// The log probe's 2 orphans of each run add up in any case.
			wantByProbe := map[string]float64{"gauge": tt.orphaned, "process": tt.orphaned + float64(len(tt.in)), "log": 2 * float64(len(tt.in))}
			if tt.shared != nil {
				wantByProbe["process"] = tt.orphaned + 1
			}
			if o.Orphaned != tt.orphaned || o.LeftoverCPUSeconds != tt.cpu || !sameByProbe(o.ByProbe, wantByProbe) {
				t.Errorf("orphaned %g, by probe %v, leftover CPU %g; want %g, %v, %g",
					o.Orphaned, o.ByProbe, o.LeftoverCPUSeconds, tt.orphaned, wantByProbe, tt.cpu)
			}
			if !reflect.DeepEqual(o.Shared, tt.shared) {
				t.Errorf("shared %+v, want %+v", o.Shared, tt.shared)
			}
			// The windows' cancels are each shard's; a shared server's
			// windows are one shard's, other runs' add up.
			n, w := len(tt.in), o.Windows
			runs := n
			if tt.shared != nil {
				runs = 1
			}
			if w.Cancelled != 3*n || w.Count != 2*runs || w.LeftoverCPUS != 0.5*float64(runs) || w.MeasuredMs != 2000*float64(runs) ||
				w.Above != runs || len(w.List) != 2*runs {
				t.Errorf("windows %+v: want %d cancelled, and %d run's windows", w, 3*n, runs)
			}
		})
	}
}

func sameByProbe(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
