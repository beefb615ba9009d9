// Package bench holds mcpchaos's end-to-end performance benchmarks. They
// build the real binary once, start `mcpchaos serve` as a separate process
// on a free 127.0.0.1 port, drive it with `mcpchaos run` (another process),
// and report what users would see: pacing accuracy at 2,000 calls/s, the
// client's memory per in-flight call with 10,000 calls held open, CPU
// seconds per 10,000 calls (side by side with vegeta, see vegeta.sh), the
// enforcement error of a timeout, the timing error of a cancel fault, a
// client's cancel at its cap as `mcpchaos proxy` sees it, and the calls
// per second one process carries with what its summary says above that.
//
// Each benchmark runs its load once per b.N iteration and is meant for
// -benchtime=1x; all of them skip under -short, and none runs without
// -bench, so `go test ./...` only compiles them. README.md gives the exact
// command for each figure. All load goes to loopback, bounded in count and
// time.
package bench
