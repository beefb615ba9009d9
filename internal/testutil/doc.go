// Package testutil holds the helpers that mcpchaos's tests share, each
// defined once: waiting for a condition without sleeping a fixed time
// (Eventually, Poll), the mcpchaos binary built once per test package
// (Binary, Main, Build), reading a Prometheus text page (Scrape, Watch),
// finding the address a subprocess bound when it listened on port 0
// (LogStderr, ServeMetricsURL), a writer that goroutines or a process
// and a test can share (LockedWriter), golden files (Golden), the built-in
// target's log of finished calls (CallsDone), text that must not act
// on a terminal (CheckPrintable, CheckOneResult), the rows of a docs
// table (DocTableRows), and real nginx on
// loopback with a configuration of the test's (StartNginx).
//
// The rules these helpers serve keep the suite green on a busy machine:
// read a counter before starting the goroutine that changes it; wait on
// channels and conditions, with a generous bound, never on a sleep; let the
// process that serves listen on 127.0.0.1:0 and report the address back,
// never pick a port by listening, closing and reusing it.
//
// testutil imports no mcpchaos package, so that every package's internal
// tests can use it without an import cycle.
package testutil
