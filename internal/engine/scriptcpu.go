package engine

import (
	"context"
	"errors"
	"math"
)

// ErrNoProcessProbe is ServerCPU's error when the run has no process
// probe: the scenario names no pid and starts no stdio server.
var ErrNoProcessProbe = errors.New("no process probe (orphans.probes has no process, and the target is not a stdio server mcpchaos starts)")

// ServerCPU reads the process probe once: the CPU seconds the server's
// process trees have used so far, and the name the probe goes by. The
// reading is bounded by orphans.read_timeout and ctx; a failed one is an
// error (and one of the run's probe errors).
func (c *Caller) ServerCPU(ctx context.Context) (cpuSeconds float64, probe string, err error) {
	pr := c.r.probes
	if pr == nil || pr.proc == nil {
		return 0, "", ErrNoProcessProbe
	}
	ps, err := pr.sampleProc(ctx, pr.r.plan.Orphans.readTimeout())
	if err != nil {
		return 0, pr.procName, err
	}
	if math.IsNaN(ps.CPUSeconds) {
		return 0, pr.procName, errors.New(pr.procName + ": no reading")
	}
	return ps.CPUSeconds, pr.procName, nil
}
