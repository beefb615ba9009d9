package summary

// The areas of the Summary that print only when they happened: what
// servers asked of the client (MRTR), the tasks they made, and what our own
// process ran out of or stalled for.

// MRTR is what servers asked of the client during calls, and what
// answering cost (docs/long-running.md): the input_required results of
// 2026 and the input requests of 2025 servers.
type MRTR struct {
	// InputRequired counts the input_required results received that
	// carried input requests; LoadShed those that carried only
	// requestState (load shedding), whether retried or not.
	InputRequired int `json:"input_required"`
	LoadShed      int `json:"load_shed"`
	// Rounds counts the retries made to answer them.
	Rounds int `json:"rounds"`
	// Calls counts the calls that made at least one retry.
	Calls int `json:"calls"`
	// Elicitation, Sampling and Roots count the input requests answered,
	// by kind: entries of 2026 inputRequests, and 2025 requests.
	Elicitation int `json:"elicitation"`
	Sampling    int `json:"sampling"`
	Roots       int `json:"roots"`
	// ContentMismatch counts accepted forms whose content, from the
	// scenario, did not fit the form's requestedSchema (both eras).
	ContentMismatch int `json:"content_mismatch"`
	// ThinkMs is the time the client waited before answering (the
	// client section's think times), per call that made a retry; ServerMs
	// is the rest of those calls' latency: from the first send to the last
	// answer, less the think time.
	ThinkMs  Latency `json:"think_ms"`
	ServerMs Latency `json:"server_ms"`
}

// Asked reports whether a server asked the client for input in the run:
// a 2026 input_required result, a 2025 request answered, or one the client
// was still thinking over when its call ended (think time without an
// answer).
func (m MRTR) Asked() bool {
	return m.InputRequired+m.LoadShed+m.Elicitation+m.Sampling+m.Roots > 0 || m.ThinkMs.Count > 0
}

// Tasks is what became of the calls a server made tasks of (the tasks
// extension, docs/long-running.md), from the records' Task.
type Tasks struct {
	// Created counts the tasks; Completed, Failed and Cancelled those
	// whose last status seen was that terminal one.
	Created   int `json:"created"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	Cancelled int `json:"cancelled"`
	// Polls counts the tasks/get sent, PollThrottled those refused as too
	// soon, Updates the tasks/update sent.
	Polls         int `json:"polls"`
	PollThrottled int `json:"poll_throttled"`
	Updates       int `json:"updates"`
	// CancelSent counts the tasks/cancel sent; Leftover those tasks that
	// did not end cancelled within orphans.grace after it (they completed
	// or still ran): information, cancellation of tasks is cooperative.
	CancelSent int `json:"cancel_sent"`
	Leftover   int `json:"leftover"`
	// Listened counts the tasks followed on a subscriptions/listen stream
	// too (the server acknowledged their id), Pushed the
	// notifications/tasks received.
	Listened int `json:"listened"`
	Pushed   int `json:"pushed"`
	// LatencyMs is the time from a task's creation to the first terminal
	// status seen, per task that reached one.
	LatencyMs Latency `json:"latency_ms"`
	// RanOnMs is the time from tasks/cancel to the terminal status of
	// each leftover task whose end was seen (the engine follows such a
	// task until its work ends, within timeouts.max and orphans.drain_max).
	RanOnMs Latency `json:"ran_on_ms"`
}

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
	// schedule, at least 5 s; or at least 2 s, with 10% of the ticks late;
	// or at least 1 s, and PacerEndLagMs over the bound), or the client
	// used its CPUs whole and dropped calls (CPUShare).
	CPU             bool    `json:"cpu"`
	PacerLate       int     `json:"pacer_late"`
	PacerMaxLagMs   float64 `json:"pacer_max_lag_ms"`
	PacerBoundMs    float64 `json:"pacer_bound_ms"`
	PacerLateSpanMs float64 `json:"pacer_late_span_ms"`
	// PacerEndLagMs is how late the load's last tick went out; more than
	// the bound, with at least 1 s of the schedule late, is the CPU limit
	// too (the pacer never caught up).
	PacerEndLagMs float64 `json:"pacer_end_lag_ms"`
	// CPUShare is the share of its CPUs the client used over the load
	// (CPUs: how many it may run on; 0: unknown). 0.9 or more with calls
	// dropped is the CPU limit too: the client could not read its answers
	// as fast as they came.
	CPUShare float64 `json:"cpu_share"`
	CPUs     int     `json:"cpus"`
	// Advice says, for each limit hit, how to raise it.
	Advice []string `json:"advice,omitempty"`
	// Example is the error of one call per limit, as the system gave it.
	Example map[string]string `json:"example,omitempty"`
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

// ClientStall is how long mcpchaos itself stalled during the load: a
// goroutine that asks to wake every 10 ms, and each wake-up more than
// 5 ms late, summed (engine/readlag.go).
type ClientStall struct {
	StalledMs float64 `json:"stalled_ms"`
	// LoadMs is the load's wall time, quiet windows included; Share is
	// StalledMs over LoadMs.
	LoadMs float64 `json:"load_ms"`
	Share  float64 `json:"stalled_share"`
}
