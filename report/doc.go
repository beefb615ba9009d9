// Package report turns the per-call records of a run into its Summary:
// counts by outcome, rates, HdrHistograms of every latency, progress and
// protocol violations, cancellation and orphan evidence, throttling onset,
// timeouts and faults. It evaluates the scenario's checks against the
// Summary, scores one verdict per area against the protocol era, and
// renders the result as text (the block `mcpchaos run` prints) or JSON.
//
// One goroutine owns an Aggregator and feeds it every finished
// results.Record; nothing inside is locked. Everything in a Summary derives
// from the records plus a few run-level inputs (Meta, Rules, ConnStats,
// Orphans), so `mcpchaos report` rebuilds the same Summary from results
// files by feeding their records to a fresh Aggregator.
//
// The JSON keys are the names checks use ("cancellation.orphaned == 0");
// KnownKeys lists them and README.md ("The summary") documents each one.
package report
