// Package html renders runs as one self-contained HTML page: the verdicts
// with their evidence, the checks, the per-tool table, the error set, the
// input servers asked for, tasks and the gateway (when the run had them,
// in the text summary's words), the scenario as run (YAML in the scenario
// file's keys), and plots drawn as inline SVG with gonum.org/v1/plot — the
// percentile spectrum of every latency histogram (several runs overlaid),
// latency, outcomes and rates second by second with the throttling onset
// marked, and the server's work (probe samples) against the client's calls
// in flight.
//
// The page has no script and fetches nothing: the style is inline, the
// plots name only generic font families, and the text that came from a
// server or a scenario is escaped. It reads offline and prints (an @media
// print style). The caller passes each run's Summary together with the
// Aggregator it came from (the histograms and the seconds), the probe
// samples of its results file, and the scenario as run, already redacted.
package html
