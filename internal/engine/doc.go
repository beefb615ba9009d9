// Package engine runs a load against an MCP server, injects the faults,
// and turns every call into a results.Record.
//
// A run starts from a Plan (FromScenario builds one from a scenario file;
// tests write them directly). Run starts the target when it is the
// built-in one, dials the clients (one for HTTP, one per stdio process),
// writes the results header and starts the collector: the one goroutine
// that owns the records, writes them and hands them to the sink, which
// aggregates the summary.
//
// The load is paced by one pacer (pacer.go), a vegeta Pacer that also
// knows when hit n was meant to go out: every tick carries its intended
// time, and latency is measured from it, so a server that slows the run
// down cannot hide its own slowness (no coordinated omission). In the
// open model (a rate, or stages) the pacer hands ticks to idle workers,
// starting new ones up to load.max_in_flight and dropping a tick that
// finds no room rather than delaying it; in the closed model a fixed
// number of workers call back to back. Background faults are paced by the
// same pacer, each at its own rate, beside the load.
//
// Each tick becomes a callState (call.go): the call's random source comes
// from the seed and the tick's number, so the same seed picks the same
// calls and draws the same faults. The call's faults are drawn (faults.go),
// the request is sent, and from then on the transport's events (headers,
// progress, the response, the end) and the timers (the idle and cap
// timeouts in timeouts.go, the faults' moments) race under the call's
// lock. Every call's timers wait in one deadline structure, a heap driven
// by one goroutine that a timerfd wakes on time (deadlines.go). Whoever stops the call first — a timeout, a fault, the end of the
// run — settles its outcome; the progress rules are applied as
// notifications arrive (progress.go). After a fault cut a call it may be
// re-issued, and a throttled call retried, each as a new request.
//
// A finished call is watched for a late window (late responses and
// progress, work after a cancel; one queue for every call, latequeue.go)
// before classify.go settles its one outcome and record.go writes its
// record. When the load ends, calls in
// flight get the graceful stop and are then cancelled; the orphan probes
// (orphans.go) look for work the server still does for calls that are
// over; and Info.Summary completes the aggregate with what only the run
// as a whole knows.
package engine
