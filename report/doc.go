// Package report turns the per-call records of a run into its Summary:
// counts by outcome, rates, HdrHistograms of every latency, progress and
// protocol violations, cancellation and orphan evidence, throttling onset,
// timeouts and faults; and asks report/verdict to score one verdict per
// area against the protocol era (Aggregator.Evidence is what it passes
// beside the Summary). The Summary's types, its JSON and the checks on its
// keys are report/summary's; report keeps its names for them as aliases.
//
// One goroutine owns an Aggregator and feeds it every finished
// results.Record; nothing inside is locked. Everything in a Summary derives
// from the records plus a few run-level inputs (Meta, Rules, the
// connection's client.Stats, Orphans), so a Summary can be rebuilt from the
// records of a results file by feeding them to a fresh Aggregator:
// report/merge does that for one or more files (`mcpchaos report`), with
// the run inputs the trailer keeps. The text block `mcpchaos run` prints is
// report/text's, the formats of other tools (JUnit XML, HdrHistogram's
// .hgrm and interval log, vegeta's results) are report/export's, the HTML
// page report/html's, and the proxy's summary is the proxy's own.
//
// The JSON keys are the names checks use ("cancellation.orphaned == 0");
// KnownKeys lists them and docs/summary.md documents each one.
package report
