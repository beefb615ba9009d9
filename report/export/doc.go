// Package export writes a run in the formats of other tools: JUnit XML
// for CI (from the Summary), HdrHistogram's .hgrm percentile distribution
// and interval log (from the Aggregator's histograms) and vegeta's results
// (from the records, one by one). The text summary and the JSON are the
// Summary's own, in package report; the HTML page is report/html.
package export
