package report

import (
	"slices"
)

// Shards of one run that share a server (an HTTP target) read the same
// server-wide quantities with their probes: the server's calls in flight,
// its CPU, its children. A merge must not add those readings up, and the
// leaked call-seconds need every shard's calls in flight at once, which no
// shard knows alone (docs/distributed.md).

// SharedServer is what a shard of a shared server records about its
// probes, in the trailer's run inputs.
type SharedServer struct {
	// AfterAll says the probes were read after every shard's calls were
	// over (the run had --start-at, so the shard knew when the others
	// end); false: after the shard's own calls only, and the readings may
	// count the other shards' calls still running.
	AfterAll bool `json:"after_all"`
	// LeakProbe is the count probe whose samples measure leaked work (the
	// first one that could be read), "" when there is none; Baseline is
	// its reading before the load.
	LeakProbe string  `json:"leak_probe,omitempty"`
	Baseline  float64 `json:"baseline"`
	// ServerProbes names the probes that read the server's whole work
	// (metric, tool, process): the same reading in every shard. The
	// others (log probes) count this shard's calls alone.
	ServerProbes []string `json:"server_probes,omitempty"`
}

// SharedLeakNote is the probe note of a shard of a shared server: its
// leaked call-seconds are measured by the merge of every shard, which
// drops the note when it did.
const SharedLeakNote = "leaked call-seconds: this shard's probes count the calls of the other shards that share the server: " +
	"mcpchaos report measures them from every shard's samples"

// mergeShared merges a shared server's readings: every shard read the same
// server-wide quantity, so the merge takes the largest reading (the sum
// would count it once per shard) — of the probes that read the server
// (ServerProbes); a log probe's orphans are each shard's calls, and add
// up. The leaked call-seconds are measured from every shard's calls and
// samples afterwards (report/merge).
func mergeShared(o *Orphans, in Orphans) {
	o.Orphaned = max(o.Orphaned, in.Orphaned)
	for k, v := range in.ByProbe {
		if o.ByProbe == nil {
			o.ByProbe = map[string]float64{}
		}
		if slices.Contains(in.Shared.ServerProbes, k) {
			o.ByProbe[k] = max(o.ByProbe[k], v)
		} else {
			o.ByProbe[k] += v
		}
	}
	o.LeftoverCPUSeconds = max(o.LeftoverCPUSeconds, in.LeftoverCPUSeconds)
	if o.Shared == nil {
		s := *in.Shared
		s.ServerProbes = slices.Clone(s.ServerProbes)
		o.Shared = &s
		return
	}
	o.Shared.AfterAll = o.Shared.AfterAll && in.Shared.AfterAll
	o.Shared.Baseline = max(o.Shared.Baseline, in.Shared.Baseline)
	if o.Shared.LeakProbe == "" {
		o.Shared.LeakProbe = in.Shared.LeakProbe
	}
}

// mergeSharedWindows merges the quiet windows of shards of a shared
// server: with --start-at they paused at the same instants and measured
// the same server, so the windows, their server readings and their list
// are one shard's (the largest readings); the calls they cancelled and the
// ticks they skipped are each shard's own and add up (mergeOrphans).
func mergeSharedWindows(w *Windows, in Windows) {
	w.Count = max(w.Count, in.Count)
	w.LeftoverCPUS = max(w.LeftoverCPUS, in.LeftoverCPUS)
	w.NoiseCPUS = max(w.NoiseCPUS, in.NoiseCPUS)
	w.Above = max(w.Above, in.Above)
	w.Quiet = max(w.Quiet, in.Quiet)
	w.QuietNoiseRate = max(w.QuietNoiseRate, in.QuietNoiseRate)
	w.MeasuredMs = max(w.MeasuredMs, in.MeasuredMs)
	if len(w.List) == 0 {
		w.List = slices.Clone(in.List)
	}
}
