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
}

// Pacer CPU rule: the run hit its CPU limit when more than
// pacerLateShare of its ticks, and at least pacerLateMin, were late, and
// the pacer stayed behind through at least pacerLateSpanMinMs of its
// schedule. A stall the pacer caught up on sooner (a busy machine, a GC
// pause: the ticks it delayed went out together) is reported, not a
// limit: the server was still given the load asked for.
const (
	pacerLateShare     = 0.01
	pacerLateMin       = 10
	pacerLateSpanMinMs = 5000
)

// ClientLimits is what our own process ran out of during the run: calls
// it could not make (file descriptors, ephemeral ports, memory) and a
// pacer that fell behind its schedule (CPU). None of it is the server's
// doing: those calls are counted in calls.client_limit and in no verdict,
// and a run that hit a limit fails (its load was not the one asked for).
type ClientLimits struct {
	// Hit: some limit was hit; the run fails.
	Hit bool `json:"hit"`
	// Calls counts the calls that ended client_limit; FDs, Ports and
	// Memory split them by what ran out.
	Calls  int `json:"calls"`
	FDs    int `json:"fds"`
	Ports  int `json:"ports"`
	Memory int `json:"memory"`
	// CPU: the pacer fell behind its schedule (PacerLate ticks more than
	// PacerBoundMs late, over 1% of them, covering PacerLateSpanMs of the
	// schedule, at least 5 s).
	CPU             bool    `json:"cpu"`
	PacerLate       int     `json:"pacer_late"`
	PacerMaxLagMs   float64 `json:"pacer_max_lag_ms"`
	PacerBoundMs    float64 `json:"pacer_bound_ms"`
	PacerLateSpanMs float64 `json:"pacer_late_span_ms"`
	// Advice says, for each limit hit, how to raise it.
	Advice []string `json:"advice,omitempty"`
	// Example is the error of one call per limit, as the system gave it.
	Example map[string]string `json:"example,omitempty"`
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
	results.LimitMemory: "out of memory: give the process more memory or lower load.max_in_flight",
	results.LimitCPU: "out of CPU: the pacer fell behind its schedule; lower the rate, give the client more CPU " +
		"(keep the server off its cores), or split the load into shards (--shard)",
}

func (a *Aggregator) buildClientLimits(s *Summary) {
	c := &s.ClientLimits
	b := a.clientLimits.byLimit
	c.FDs, c.Ports, c.Memory = b[results.LimitFDs], b[results.LimitPorts], b[results.LimitMemory]
	c.Calls = s.Calls.ClientLimit
	p := a.clientLimits.pacer
	c.PacerLate, c.PacerMaxLagMs, c.PacerBoundMs = p.Late, round3(p.MaxLagMs), p.BoundMs
	c.PacerLateSpanMs = round3(p.LateSpanMs)
	c.CPU = p.Late >= pacerLateMin && float64(p.Late) > pacerLateShare*float64(p.Ticks) && p.LateSpanMs >= pacerLateSpanMinMs
	for _, l := range []string{results.LimitFDs, results.LimitPorts, results.LimitMemory} {
		if b[l] > 0 {
			c.Advice = append(c.Advice, limitAdvice[l])
			if c.Example == nil {
				c.Example = map[string]string{}
			}
			c.Example[l] = a.clientLimits.example[l]
		}
	}
	if c.CPU {
		c.Advice = append(c.Advice, limitAdvice[results.LimitCPU])
	}
	// A call whose limit is unknown (a file from another version) still
	// counts.
	c.Hit = c.Calls > 0 || c.CPU
}

// clientLimitReason is the Result line's reason for a run that hit a
// limit of its own.
func (c ClientLimits) reason() string {
	var what []string
	for _, x := range []struct {
		n    int
		name string
	}{{c.FDs, "file descriptors"}, {c.Ports, "local ports"}, {c.Memory, "memory"}} {
		if x.n > 0 {
			what = append(what, x.name)
		}
	}
	if c.CPU {
		what = append(what, "CPU")
	}
	if len(what) == 0 {
		what = append(what, "a resource")
	}
	return "the client ran out of " + joinAnd(what) + ": the server was not given the load asked for"
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 1:
		return xs[0]
	case 2:
		return xs[0] + " and " + xs[1]
	}
	out := ""
	for i, x := range xs {
		switch {
		case i == len(xs)-1:
			out += ", and " + x
		case i > 0:
			out += ", " + x
		default:
			out = x
		}
	}
	return out
}
