package main

import (
	"fmt"
	"io"
	"os"
	"runtime/trace"
)

// envTrace names the file of a runtime execution trace of the whole run
// (MCPCHAOS_TRACE=FILE): where the scheduler kept a due timeout or fault
// waiting, read with `go tool trace -pprof=sched FILE` or `go tool trace
// FILE` (docs/performance.md). Like the memory profile, it is a diagnosis,
// not a feature of the run; a trace costs CPU and grows by megabytes a
// second at a thousand calls a second.
const envTrace = "MCPCHAOS_TRACE"

// traceRun starts the trace when the environment asks for one and returns
// what ends it and closes the file.
func traceRun(stderr io.Writer) (stop func()) {
	path := os.Getenv(envTrace)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(stderr, "mcpchaos run: %s: %v\n", envTrace, err)
		return func() {}
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		os.Remove(path) // an empty file would read as a trace
		fmt.Fprintf(stderr, "mcpchaos run: %s=%q: start the trace: %v\n", envTrace, path, err)
		return func() {}
	}
	return func() {
		trace.Stop()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "mcpchaos run: %s: write %q: %v\n", envTrace, path, err)
			return
		}
		fmt.Fprintf(stderr, "mcpchaos run: execution trace written to %s\n", path)
	}
}
