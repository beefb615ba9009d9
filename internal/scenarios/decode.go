package scenarios

import (
	"math"

	"github.com/goccy/go-yaml/ast"
)

// The schema walk: one function per section of the file. Each reads its
// keys through object getters (which report errors where the values
// stand) and fills in the defaults of absent keys.

var (
	// The key lists come from the field tables (fieldtables.go).
	topKeys      = topFields(nil).names()
	protocols    = []string{ProtocolAuto, Protocol20260728, Protocol20251125, Protocol20250618, Protocol20241105}
	loadKeys     = loadFields().names()
	timeoutKeys  = timeoutFields().names()
	policyKeys   = policyFields().names()
	callKeys     = callFields().names()
	progressKeys = progressFields().names()
)

func (d *decoder) scenario(root ast.Node) *Scenario {
	s := &Scenario{File: d.file}
	o := d.object("", posOf(root), root)
	if o.bad {
		return s
	}
	o.known(topKeys...)
	o.require(topFields(nil).required()...)
	s.Name = o.stringOr("name", defaultName(d.file))
	s.Seed = DefaultSeed
	if v, ok := o.integer("seed"); ok {
		s.Seed = v
	}
	s.Protocol = o.enum("protocol", ProtocolAuto, protocols...)
	d.protocolPos = o.at("protocol")
	if o.has("target") {
		s.Target = d.target(o.sub("target"), o.keyAt("target"))
	}
	if o.has("load") {
		s.Load = d.load(o.sub("load"))
	}
	s.Timeouts = d.timeouts(o.sub("timeouts"))
	s.Calls = d.calls(o)
	for _, it := range o.items("faults") {
		if f, r, ok := d.fault(it); ok {
			s.Faults = append(s.Faults, f)
			d.faultRefs = append(d.faultRefs, r)
		}
	}
	s.Orphans = d.orphans(o.sub("orphans"))
	s.Progress = d.progress(o.sub("progress"))
	s.Throttling = d.throttling(o.sub("throttling"))
	s.Identities = d.identities(o, s.Target)
	if o.present("client") {
		s.Client = d.client(o.sub("client"), o.keyAt("client"))
	}
	if o.has("gateway") {
		s.Gateway = d.gateway(o.sub("gateway"))
	}
	s.FailOnViolation = o.boolOr("fail_on_violation", true)
	for _, it := range o.items("checks") {
		raw, ok := d.stringItem(it)
		if !ok {
			continue
		}
		c, err := ParseCheck(raw)
		if err != nil {
			d.errorf(it.pos, it.path, "%v", err)
			continue
		}
		c.Pos = it.pos
		s.Checks = append(s.Checks, c)
	}
	return s
}

func (d *decoder) load(o *object) Workload {
	l := Workload{MaxInFlight: DefaultMaxInFlight, GracefulStop: DefaultGracefulStop}
	o.known(loadKeys...)
	l.Rate, _ = o.rate("rate")
	if o.has("stages") {
		items := o.items("stages")
		if len(items) == 0 && o.isSequence("stages") {
			o.errf("stages", "want at least one stage")
		}
		for _, it := range items {
			so := d.object(it.path, it.pos, it.raw)
			so.known(stageFields().names()...)
			so.require(stageFields().required()...)
			st := Stage{Pos: it.pos}
			st.To, _ = so.rate("to")
			st.Over = so.positive("over", 0)
			l.Stages = append(l.Stages, st)
		}
	}
	if o.has("concurrency") {
		l.Concurrency = int(o.intBetween("concurrency", 0, 1, MaxConcurrency))
	}
	switch {
	case o.has("concurrency") && (o.has("rate") || o.has("stages")):
		o.errf("concurrency", "cannot be combined with rate or stages (concurrency is the closed model, rate and stages the open one)")
	case !o.has("concurrency") && !o.has("rate") && !o.has("stages"):
		if !o.bad {
			d.errorf(o.pos, o.path, "want one of rate, stages or concurrency")
		}
	}
	if o.has("stages") {
		l.Duration = o.duration("duration", 0)
	} else if o.has("duration") {
		l.Duration = o.positive("duration", 0)
	} else if !o.bad {
		d.errorf(o.pos, o.path, "missing required key %q (it may be left out only with stages)", "duration")
	}
	l.MaxInFlight = int(o.intBetween("max_in_flight", DefaultMaxInFlight, 1, MaxInFlight))
	l.GracefulStop = o.duration("graceful_stop", DefaultGracefulStop)
	if o.has("ids") { // else the zero IDs: sequential, one connection
		l.IDs = d.ids(o.sub("ids"), o.at("ids"))
	}
	if err := l.checkLength(); err != nil {
		at := "duration"
		if !o.has(at) {
			at = "stages"
		}
		o.errf(at, "%v", err)
	}
	return l
}

func (d *decoder) timeouts(o *object) Timeouts {
	o.known(timeoutKeys...)
	t := Timeouts{
		Idle: o.positive("idle", DefaultIdleTimeout),
		Max:  o.positive("max", DefaultMaxTimeout),
		// Connect: a stdio bridge such as mcp-remote answers its
		// initialize only once its own upstream is up.
		Connect: o.positive("connect", DefaultConnectTimeout),
	}
	if t.Max < t.Idle {
		if o.has("max") {
			o.errf("max", "%s is shorter than %s (%s)", t.Max, join(o.path, "idle"), t.Idle)
		} else {
			o.errf("idle", "%s is longer than %s (default %s); set max too", t.Idle, join(o.path, "max"), t.Max)
		}
	}
	if !o.has("policies") {
		t.Policies = DefaultPolicies()
		return t
	}
	t.Policies = []Policy{}
	names := map[string]bool{}
	for _, it := range o.items("policies") {
		po := d.object(it.path, it.pos, it.raw)
		if po.bad {
			continue
		}
		po.known(policyKeys...)
		p := Policy{Pos: it.pos}
		var empty bool
		switch p.Name, empty = po.name("name"); {
		case empty || !po.has("name"):
		case !ValidKeySegment(p.Name):
			po.errf("name", "%s", segmentError("policy", p.Name, "timeouts.policies.NAME"))
		case names[p.Name]:
			po.errf("name", "duplicate policy name %q", p.Name)
		}
		names[p.Name] = true
		switch po.exactlyOne("timeout", "idle") {
		case "timeout":
			p.Timeout = po.positive("timeout", 0)
			for _, k := range []string{"reset_on_progress", "max"} {
				if po.present(k) {
					d.errorf(po.keyAt(k), join(po.path, k), "applies only with idle, not with timeout")
				}
			}
		case "idle":
			p.Idle = po.positive("idle", 0)
			p.ResetOnProgress = po.boolOr("reset_on_progress", false)
			if po.has("max") {
				p.Max = po.positive("max", 0)
			}
		}
		t.Policies = append(t.Policies, p)
	}
	return t
}

func (d *decoder) calls(top *object) []Call {
	if !top.has("calls") {
		return nil
	}
	items := top.items("calls")
	if len(items) == 0 && top.isSequence("calls") {
		top.errf("calls", "want at least one call")
	}
	var calls []Call
	for _, it := range items {
		o := d.object(it.path, it.pos, it.raw)
		if o.bad {
			continue
		}
		o.known(callKeys...)
		c := Call{Pos: it.pos}
		c.Tool, _ = o.name("tool")
		c.Weight = o.numberBetween("weight", DefaultWeight, 0, MaxWeight, true)
		c.Arguments, _ = o.anyMap("arguments")
		c.Progress = o.boolOr("progress", true)
		c.Task = o.boolOr("task", false)
		calls = append(calls, c)
	}
	return calls
}

func (d *decoder) progress(o *object) Progress {
	o.known(progressKeys...)
	return Progress{
		Grace:   o.duration("grace", DefaultProgressGrace),
		FloodHz: o.numberBetween("flood_hz", DefaultFloodHz, 0, math.MaxFloat64, true),
		Stall:   o.positive("stall", DefaultStall),
	}
}
