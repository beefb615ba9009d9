// Package runtest runs scenarios in tests the way `mcpchaos run` does:
// parse, plan, run the engine with a report.Aggregator as the sink,
// summarize, and say what came out when a test fails. The packages whose
// tests drive whole runs (e2e, faults) share this one copy, with the
// built-in target's ground truth: an HTTP target started in the test's own
// process, or a stdio target's metrics endpoint watched during the run.
//
// Unlike internal/testutil, which imports no mcpchaos package so that
// every package's internal tests can use it, runtest imports the engine
// and so serves only external tests and test-only packages.
package runtest
