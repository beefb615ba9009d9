package report

import (
	"github.com/mcpchaos/mcpchaos/results"
)

// PacerLag is how far behind its schedule a run's pacer handed out its
// ticks (a run input: only the running process knows it).
type PacerLag struct {
	// Ticks counts the ticks handed out; Late those handed out more than
	// BoundMs after their intended time.
	Ticks    int     `json:"ticks"`
	Late     int     `json:"late"`
	MaxLagMs float64 `json:"max_lag_ms"`
	BoundMs  float64 `json:"bound_ms"`
	// LateSpanMs is how much of the schedule the late ticks covered (the
	// sum of the intervals that ended in a late tick): how long the pacer
	// stayed behind, as against how many ticks a stall delayed.
	LateSpanMs float64 `json:"late_span_ms"`
	// EndLagMs is how late the load's last tick was handed out: a pacer
	// still behind when the load ended never caught up, and the load ran
	// that much longer than planned.
	EndLagMs float64 `json:"end_lag_ms"`
	// CPUShare is the share of its CPUs (CPUs: the cores it may run on)
	// the process used over the load; 0 when unknown (not Linux, or the
	// built-in target served in the same process, whose work it counts).
	CPUShare float64 `json:"cpu_share,omitempty"`
	CPUs     int     `json:"cpus,omitempty"`
}

// cpuBusyShare is the share of its CPUs above which a client that dropped
// calls was itself the bottleneck: with the server on cores of its own, a
// client that cannot read its answers as fast as they come keeps its calls
// in flight, max_in_flight fills and ticks are dropped, while its pacer,
// which costs little, stays on time (at 32,000 calls/s on one core: 100%
// of it, 57,896 dropped, the pacer at most 258 ms late).
const cpuBusyShare = 0.9

// busy applies the busy-client rule: the client used cpuBusyShare of its
// CPUs over the load and dropped calls.
func (p PacerLag) busy(dropped int) bool {
	return p.CPUShare >= cpuBusyShare && dropped > 0
}

// Pacer CPU rule: the run hit its CPU limit when more than
// pacerLateShare of its ticks, and at least pacerLateMin, were late, and
// the pacer stayed behind through at least pacerLateSpanMinMs of its
// schedule; or through at least pacerShareSpanMinMs of it with at least
// pacerLateShareMany of the ticks late (at 20,000 calls/s for 10 s a
// client was over 1 s late on 35% of its ticks, through 3.5 s of the
// schedule); or through at least pacerEndSpanMinMs of it and still more
// than the bound behind when the load ended (it never caught up: at
// 20,000 calls/s a client fell behind in its last seconds, 1.5 s of the
// schedule late, and the load ran 1.9 s past its 10 s). A stall the pacer
// caught up on sooner (a busy machine, a GC pause: the ticks it delayed
// went out together; 1.5 s in a 2 s load at 20/s is 0.5 s of the schedule
// late) is reported, not a limit: the server was still given the load
// asked for.
const (
	pacerLateShare      = 0.01
	pacerLateMin        = 10
	pacerLateSpanMinMs  = 5000
	pacerLateShareMany  = 0.10
	pacerShareSpanMinMs = 2000
	pacerEndSpanMinMs   = 1000
)

// cpuLimit applies the pacer CPU rule.
func (p PacerLag) cpuLimit() bool {
	if p.Late < pacerLateMin || float64(p.Late) <= pacerLateShare*float64(p.Ticks) {
		return false
	}
	neverCaughtUp := p.BoundMs > 0 && p.EndLagMs > p.BoundMs && p.LateSpanMs >= pacerEndSpanMinMs
	mostlyLate := float64(p.Late) >= pacerLateShareMany*float64(p.Ticks) && p.LateSpanMs >= pacerShareSpanMinMs
	return p.LateSpanMs >= pacerLateSpanMinMs || (mostlyLate || neverCaughtUp) && !p.oneStall()
}

// oneStall says whether the late ticks are those of one stall of the
// whole process (a busy machine, a long GC pause) rather than a pacer
// that could not keep up. In a stall from a to b no tick goes out, and
// then all at once: the first tick of it is the latest, b − a, which is
// the schedule the late ticks cover (up to b − bound, or the load's end)
// plus the bound (a stall caught up on) or the end lag (a stall across
// the end). A pacer that falls behind hands its ticks out late but
// steadily, its lag growing: the latest is the last, far less than the
// span and the end lag together (at 20,000 calls/s: 2.4 s against 3.4 s,
// and 3.0 s against 3.5 s). Only the shorter rules above take a stall for
// what it is; one over pacerLateSpanMinMs is a limit whatever its shape.
func (p PacerLag) oneStall() bool {
	return p.MaxLagMs >= p.LateSpanMs+max(p.EndLagMs, p.BoundMs)-p.BoundMs/4
}

// clientLimitAgg counts client_limit calls by what ran out.
type clientLimitAgg struct {
	byLimit map[string]int
	example map[string]string
	pacer   PacerLag
}

func (c *clientLimitAgg) add(r *results.Record) {
	if r.Outcome != results.ClientLimit {
		return
	}
	if c.byLimit == nil {
		c.byLimit, c.example = map[string]int{}, map[string]string{}
	}
	c.byLimit[r.Limit]++
	if _, ok := c.example[r.Limit]; !ok {
		c.example[r.Limit] = r.Error
	}
}

// limitAdvice says how to raise each limit.
var limitAdvice = map[string]string{
	results.LimitFDs: "out of file descriptors: raise the limit (ulimit -n 65536, or LimitNOFILE= for a service) " +
		"or lower load.max_in_flight (each call in flight holds a connection over HTTP/1.1)",
	results.LimitPorts: "out of local ports: widen net.ipv4.ip_local_port_range (sysctl), enable net.ipv4.tcp_tw_reuse, " +
		"or lower load.max_in_flight / the rate (every new connection takes a port)",
	results.LimitMemory: "out of memory (the system's ENOMEM, or calls not sent while the client needed 85% of its memory limit): " +
		"raise GOMEMLIMIT or the container's memory limit (cgroup memory.max), or lower load.max_in_flight",
	results.LimitCPU: "out of CPU: the pacer fell behind its schedule; lower the rate, give the client more CPU " +
		"(keep the server off its cores), or split the load into shards (--shard)",
	limitCPUBusy: "out of CPU: the client used its CPUs whole and dropped calls (answers waited for it to read them " +
		"while max_in_flight filled); lower the rate, give the client more CPU, or split the load into shards (--shard)",
}

// limitCPUBusy is limitAdvice's key for the busy-client rule.
const limitCPUBusy = "cpu_busy"

func (a *Aggregator) buildClientLimits(s *Summary) {
	c := &s.ClientLimits
	b := a.clientLimits.byLimit
	c.FDs, c.Ports, c.Memory = b[results.LimitFDs], b[results.LimitPorts], b[results.LimitMemory]
	c.Calls = s.Calls.ClientLimit
	p := a.clientLimits.pacer
	c.PacerLate, c.PacerMaxLagMs, c.PacerBoundMs = p.Late, round3(p.MaxLagMs), p.BoundMs
	c.PacerLateSpanMs, c.PacerEndLagMs = round3(p.LateSpanMs), round3(p.EndLagMs)
	c.CPUShare, c.CPUs = round3(p.CPUShare), p.CPUs
	busy := p.busy(s.Calls.Dropped)
	c.CPU = p.cpuLimit() || busy
	for _, l := range []string{results.LimitFDs, results.LimitPorts, results.LimitMemory} {
		if b[l] > 0 {
			c.Advice = append(c.Advice, limitAdvice[l])
			if c.Example == nil {
				c.Example = map[string]string{}
			}
			c.Example[l] = a.clientLimits.example[l]
		}
	}
	switch {
	case p.cpuLimit():
		c.Advice = append(c.Advice, limitAdvice[results.LimitCPU])
	case busy:
		c.Advice = append(c.Advice, limitAdvice[limitCPUBusy])
	}
	// A call whose limit is unknown (a file from another version) still
	// counts.
	c.Hit = c.Calls > 0 || c.CPU
}
