package engine

import (
	"math"
	"slices"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

// The process's CPU by tool (issue 25). A process probe judges whether
// the tools' work is CPU it can see from the CPU per second of a live call
// (ProcessCPU.PerCallS), over every call of the load. In a load of several
// tools that figure is a mix: a tool that computes makes a tool that only
// sleeps look visible, and a sleeping tool cut by the faults then "stops"
// in every quiet window, a false pass. So the sampler also keeps, for each
// tool, the CPU of the sampling intervals in which only that tool's calls
// were in flight (inflightSet.markPeak), against those calls' live
// seconds: what one of its calls costs the process, measured while no
// other tool's call ran. The verdicts judge each tool the faults cut by it
// (report/verdict/toolcpu.go).

// toolCPU sums one tool's intervals.
type toolCPU struct {
	cpu    float64   // CPU-s above the idle rate
	live   float64   // the tool's live call-seconds
	secs   float64   // the intervals' length
	runs   int       // runs of consecutive intervals
	endsAt time.Time // the end of the last interval counted
}

// toolSample is the previous sample's process CPU, for the next interval.
type toolSample struct {
	cpu float64
	at  time.Time
	ok  bool
}

// noteTool adds the interval that ends at now, with the process's CPU
// reading cpu (NaN when unread), to the one tool whose calls alone were in
// flight during it (only; "" for none or several). It reads the client's
// in-flight count at the interval's start, so it runs before
// pr.client.add. pr.mu is held.
func (pr *probeRun) noteTool(only string, now time.Time, cpu float64) {
	if pr.proc == nil {
		return
	}
	prev := pr.toolPrev
	if math.IsNaN(cpu) {
		pr.toolPrev = toolSample{}
		return
	}
	pr.toolPrev = toolSample{cpu: cpu, at: now, ok: true}
	d := now.Sub(prev.at)
	if only == "" || !prev.ok || d <= 0 || d > pr.client.gap || !pr.client.seen {
		return
	}
	if pr.byTool == nil {
		pr.byTool = make(map[string]*toolCPU)
	}
	t := pr.byTool[only]
	if t == nil {
		if len(pr.byTool) >= maxToolsCPU {
			return
		}
		t = &toolCPU{}
		pr.byTool[only] = t
	}
	s := d.Seconds()
	t.cpu += cpu - prev.cpu - pr.idleCPU*s
	t.live += pr.client.last.V * s
	t.secs += s
	if !t.endsAt.Equal(prev.at) {
		t.runs++
	}
	t.endsAt = now
}

// maxToolsCPU bounds the tools kept: a scenario names few.
const maxToolsCPU = 64

// toolsCPU returns each tool's figures, by name, for a load of more than
// one tool (nil otherwise: PerCallS is then the one tool's; nil too when
// the tools were not tracked, a shared server's shard). A tool whose calls
// never ran alone is listed with no live seconds. pr.mu is not held.
func (pr *probeRun) toolsCPU() []report.ToolCPU {
	names := pr.r.plan.toolNames()
	if len(names) < 2 || !pr.r.inflight.tracking() {
		return nil
	}
	slices.Sort(names)
	pr.mu.Lock()
	defer pr.mu.Unlock()
	out := make([]report.ToolCPU, 0, len(names))
	for _, name := range names {
		tc := report.ToolCPU{Tool: name}
		if t := pr.byTool[name]; t != nil && t.live > 0 {
			tc.LiveS = round6(t.live)
			tc.MeasuredS = round6(t.secs)
			tc.CPUS = round6(max(t.cpu, 0))
			// Each run of intervals is read to a clock tick at each end,
			// and the idle rate taken off is known to its noise.
			tc.NoiseS = round6(cpuTick*math.Sqrt(float64(2*t.runs)) + noiseK*pr.idleNoise*t.secs)
			tc.PerCallS = round6(max(t.cpu, 0) / t.live)
		}
		out = append(out, tc)
	}
	return out
}

// round6 rounds CPU-seconds to the microsecond, dropping the float noise
// of sums of clock ticks.
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }
