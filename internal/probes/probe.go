package probes

import (
	"context"
	"errors"
)

// Probe reads one number from the server side.
type Probe interface {
	// Name says what the probe reads, e.g. `metric mcp_inflight_calls`,
	// `process`, `tool inflight /active`.
	Name() string
	// Sample reads the current value, bounded by ctx.
	Sample(ctx context.Context) (float64, error)
}

// ErrAbsent is wrapped by the error of a metric probe whose metric, or
// whose label selection, is not exported at all. Servers often create a
// labelled series only on first use, so the engine may choose to read
// this as zero before the load starts.
var ErrAbsent = errors.New("absent")
