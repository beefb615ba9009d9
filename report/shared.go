package report

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
}
