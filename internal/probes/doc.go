// Package probes reads the server side of a load run: how much work the
// server under test is still doing, so mcpchaos can tell whether calls that
// nobody waits for any more (cancelled, timed out, disconnected) keep
// running — "orphaned work".
//
// A Probe reads one number. The engine samples every probe once before the
// load (the baseline), periodically during the run (every 100 ms by
// default) and after the load plus a grace period, and compares each value
// with the baseline; the arithmetic it uses on a probe's readings (Above,
// LeftoverCPU) is in series.go, as pure functions, and that of step series
// (DrainTime, LeakedCallSeconds) in package series. Every Sample is
// bounded by its context and safe to call from several goroutines. Probes that hold resources also implement io.Closer.
//
// # What each probe sees, and its limits
//
// A metric probe (NewMetric) scrapes a Prometheus endpoint and sums the
// samples of one gauge, counter or untyped metric whose labels include the
// given ones. It sees only what the server exports, and only as honestly
// as the server counts: a gauge decremented when a call is cancelled rather
// than when its handler returns hides exactly the orphans we look for. It
// asks for the text format (0.0.4); OpenMetrics is decoded when a server
// insists on it, protobuf is refused. The body is streamed, never held:
// only the lines that mention the metric's name are kept and handed to
// expfmt (which does all the parsing), so a hostile or endless body costs
// at most a few MiB of memory and stops at Limits.MaxBodyBytes. A metric
// that is not exported at all is an error wrapping ErrAbsent. expfmt's
// OpenMetrics decoder is a general ABNF parser (milliseconds a line, and
// superlinear in a line's length), so in an OpenMetrics body the metric
// may be mentioned on at most 16 lines of at most 512 bytes (Limits).
//
// A process probe (NewProcess) reads /proc (Linux only) for the process
// trees rooted at the given pids: the CPU time of every process in them,
// their threads and their descendants. It sees work done in those
// processes and nowhere else: not work handed to a database, a daemon or a
// container outside our pid namespace, and not a worker that detached
// itself (double fork, reparented to init). Its CPU time includes the
// server's own idle work (garbage collection, timers, keep-alives), which
// is why a baseline and a quiet window are used, and it is counted in clock
// ticks (10 ms on Linux), so differences below a few ticks mean nothing.
// SampleTree returns the whole ProcessSample; as a Probe, Sample returns
// its CPUSeconds.
//
// A tool probe (NewTool) calls a tool on the server and reads a number from
// its result with a JSON pointer. It sees what the server says about
// itself; each sample is one more call to a server that may be overloaded,
// and that call may count itself as in flight (the baseline, taken the same
// way, absorbs that).
package probes
