package scenarios

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	orphanKeys     = orphanFields().names()
	windowKeys     = windowFields().names()
	probeKinds     = []string{"metric", "process", "tool", "log"}
	metricKeys     = metricFields().names()
	toolProbeKeys  = toolProbeFields().names()
	throttlingKeys = throttlingFields().names()
	retryKeys      = retryFields().names()
)

func (d *decoder) orphans(o *object) Orphans {
	o.known(orphanKeys...)
	r := Orphans{
		Grace:       o.duration("grace", DefaultOrphanGrace),
		DrainMax:    o.duration("drain_max", DefaultDrainMax),
		SampleEvery: o.positive("sample_every", DefaultSampleEvery),
	}
	names := map[string]Pos{}
	if o.present("windows") {
		r.Windows = d.windows(o.sub("windows"), o.at("windows"))
	}
	for _, it := range o.items("probes") {
		po := d.object(it.path, it.pos, it.raw)
		if po.bad {
			continue
		}
		po.known(probeFields().names()...)
		p := Probe{Pos: it.pos}
		switch po.exactlyOne(probeKinds...) {
		case "metric":
			p.Metric = d.metricProbe(po.sub("metric"))
		case "process":
			so := po.sub("process")
			so.known(processFields().names()...)
			p.Process = &ProcessProbe{PID: int(so.intBetween("pid", 0, 0, MaxCount))}
		case "tool":
			p.Tool = d.toolProbe(po.sub("tool"))
		case "log":
			p.Log = d.logProbe(po.sub("log"))
		default:
			continue
		}
		p.Name = d.probeName(po, p, names)
		r.Probes = append(r.Probes, p)
		d.probeRefs = append(d.probeRefs, refOf(po))
	}
	return r
}

// windows decodes orphans.windows: {every: DURATION, for: DURATION}, both
// required and positive.
func (d *decoder) windows(o *object, pos Pos) *Windows {
	o.known(windowKeys...)
	o.require(windowKeys...)
	return &Windows{Every: o.positive("every", 0), For: o.positive("for", 0), Pos: pos}
}

func (d *decoder) metricProbe(o *object) *MetricProbe {
	o.known(metricKeys...)
	o.require("url", "name")
	m := &MetricProbe{}
	if u, ok := o.str("url"); ok {
		if err := checkHTTPURL(u); err != nil {
			o.errf("url", "%v", err)
		}
		m.URL = u
	}
	if n, ok := o.str("name"); ok {
		if !validMetricName(n) {
			o.errf("name", "invalid metric name %q", n)
		}
		m.Name = n
	}
	if labels, ok := o.stringMap("labels"); ok || labels != nil {
		m.Labels = make(map[string]string, len(labels))
		for k, v := range labels {
			if !validLabelName(k) {
				d.errorf(v.pos, v.path, "invalid label name %q", k)
				continue
			}
			m.Labels[k] = v.s
		}
	}
	return m
}

func (d *decoder) toolProbe(o *object) *ToolProbe {
	o.known(toolProbeKeys...)
	t := &ToolProbe{}
	t.Name, _ = o.name("name")
	t.Arguments, _ = o.anyMap("arguments")
	if p, ok := o.str("pointer"); ok {
		if err := checkPointer(p); err != nil {
			o.errf("pointer", "%v", err)
		}
		t.Pointer = p
	}
	return t
}

var logProbeKeys = logProbeFields().names()

// doneGroups are the names of the groups that name the call in a log
// probe's done regexp: the request id and the progress token (the names
// package probes accepts; a test in engine checks they agree).
var doneGroups = []string{"id", "token"}

// logProbe decodes a log probe: a file or the stdio servers' stderr, and a
// done regexp that compiles and has a group naming the call. (Whether the
// target has a stderr is checked by validate.)
func (d *decoder) logProbe(o *object) *LogProbe {
	o.known(logProbeKeys...)
	o.require("done")
	l := &LogProbe{}
	if f, ok := o.str("file"); ok {
		v := positioned{s: f, pos: o.at("file"), path: join(o.path, "file")}
		if d.expand(&v) {
			if v.s == "" {
				o.errf("file", "must not be empty")
			}
			l.File = v.s
		}
	}
	l.Stderr, l.stderrAt = o.boolOr("stderr", false), o.at("stderr")
	switch {
	case o.has("file") && l.Stderr:
		o.errf("stderr", "file and stderr: true exclude each other (one log per probe)")
	case !o.has("file") && !l.Stderr && !o.bad:
		d.errorf(o.pos, o.path, "want file: PATH or stderr: true")
	}
	if s, ok := o.str("done"); ok {
		if err := checkDone(s); err != nil {
			o.errf("done", "%v", err)
		}
		l.Done = s
	}
	return l
}

// checkDone reports a done regexp that does not compile or has no group
// naming the call.
func checkDone(expr string) error {
	re, err := regexp.Compile(expr)
	if err != nil {
		return fmt.Errorf("invalid regular expression %q: %v", clip(expr), err)
	}
	for _, g := range doneGroups {
		if re.SubexpIndex(g) >= 0 {
			return nil
		}
	}
	return fmt.Errorf("regular expression %q has no group (?P<id>...) or (?P<token>...) naming the call (the request id or the progress token)", clip(expr))
}

func (d *decoder) throttling(o *object) Throttling {
	o.known(throttlingKeys...)
	t := Throttling{
		Message:     o.stringOr("message", DefaultThrottleMessage),
		ToolMessage: o.stringOr("tool_message", DefaultThrottleMessage),
	}
	for _, k := range []string{"message", "tool_message"} {
		if s, ok := o.str(k); ok {
			if _, err := regexp.Compile(s); err != nil {
				o.errf(k, "invalid regular expression %q: %v", clip(s), err)
			}
		}
	}
	for _, it := range o.items("rpc_codes") {
		if v, ok := d.intItem(it); ok {
			if v < -1<<31 || v > 1<<31-1 {
				d.errorf(it.pos, it.path, "%d is not a 32-bit JSON-RPC error code", v)
				continue
			}
			t.RPCCodes = append(t.RPCCodes, int(v))
		}
	}
	if o.present("retry") {
		ro := o.sub("retry")
		ro.known(retryKeys...)
		t.Retry = &Retry{
			HonorRetryAfter: ro.boolOr("honor_retry_after", true),
			Max:             int(ro.intBetween("max", DefaultRetryMax, 0, MaxRetries)),
		}
	}
	return t
}

// checkPointer accepts a JSON pointer (RFC 6901): "" or "/"-separated
// tokens where "~" is followed by 0 or 1.
func checkPointer(p string) error {
	if p == "" {
		return nil
	}
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("invalid JSON pointer %q: must be empty or start with /", p)
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 == len(p) || (p[i+1] != '0' && p[i+1] != '1')) {
			return fmt.Errorf("invalid JSON pointer %q: ~ must be followed by 0 or 1", p)
		}
	}
	return nil
}

// validMetricName reports whether name is a Prometheus metric name
// ([a-zA-Z_:][a-zA-Z0-9_:]*).
func validMetricName(name string) bool {
	return validIdent(name, ":")
}

// validLabelName reports whether name is a Prometheus label name
// ([a-zA-Z_][a-zA-Z0-9_]*).
func validLabelName(name string) bool {
	return validIdent(name, "")
}

func validIdent(name, extra string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', strings.ContainsRune(extra, r):
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
