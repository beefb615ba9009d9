// Package summary is a run's Summary as data: its types (the JSON
// `mcpchaos run --summary-json` writes and a results file's trailer keeps),
// their dotted keys (KnownKeys), the checks a scenario states on those keys
// and their evaluation (Evaluate: pass or fail, and why), and the words its
// values are written in (durations, rates, counts), so that every
// rendering says a value alike.
//
// Package report builds a Summary from the records and scores its
// verdicts; report/text, report/html and report/export render it. This
// package imports none of them: they all read the Summary here. The
// latency histograms behind pNN() checks at any percentile are the
// Aggregator's (Summary.Histograms); a Summary read from JSON has only
// the percentiles its JSON holds.
package summary
