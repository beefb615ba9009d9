package scenarios

import (
	"path"
	"strings"
)

var (
	disconnectModes = []string{DisconnectFIN, DisconnectRST, DisconnectClose, DisconnectKill}
	malformedModes  = []string{MalformedJSON, MalformedParams, MalformedOversize, MalformedMissingMeta}
)

// fault decodes one entry of the faults list. The kind is read first; it
// decides which other keys are allowed.
func (d *decoder) fault(it item) (Fault, ref, bool) {
	o := d.object(it.path, it.pos, it.raw)
	f := Fault{Pos: it.pos}
	if o.bad {
		return f, ref{}, false
	}
	if !o.has("kind") {
		o.require("kind")
		return f, ref{}, false
	}
	kind, ok := o.text("kind")
	if !ok {
		return f, ref{}, false
	}
	spec, found := lookupFault(kind)
	if !found {
		o.errf("kind", "unknown fault kind %q (known: %s)", kind, faultKindNames())
		return f, ref{}, false
	}
	f.Kind = spec.kind
	allowed := spec.allowedKeys()
	for _, e := range o.list {
		if contains(allowed, e.key) {
			continue
		}
		if anyFaultKey(e.key) {
			d.errorf(e.keyPos, o.path, "key %q does not apply to kind %s (allowed: %s)", e.key, kind, strings.Join(allowed, ", "))
		} else {
			d.errorf(e.keyPos, o.path, "unknown key %q (allowed for kind %s: %s)", e.key, kind, strings.Join(allowed, ", "))
		}
	}

	if f.Kind.Background() {
		o.require("rate")
		f.Rate, _ = parsed(o, "rate", ParseRate)
		return f, refOf(o, "mode", "tools", "after_progress"), true
	}

	f.Probability = o.prob("probability", DefaultProbability)
	if pats, ok := o.stringList("tools"); ok || pats != nil {
		for _, p := range pats {
			if p.s == "" {
				d.errorf(p.pos, p.path, "empty tool pattern")
				continue
			}
			if _, err := path.Match(p.s, ""); err != nil {
				d.errorf(p.pos, p.path, "invalid tool pattern %q: %v", p.s, err)
				continue
			}
			f.Tools = append(f.Tools, p.s)
		}
	}
	if spec.timed {
		switch o.exactlyOneValue("after", "after_progress") {
		case "after":
			if dist, ok := parsed(o, "after", ParseDist); ok {
				f.After = &dist
			}
		case "after_progress":
			f.AfterProgress = int(o.intAtLeast("after_progress", 0, 1))
		}
	}

	switch f.Kind {
	case FaultCancel:
		f.AlsoNotify = o.boolOr("also_notify", false)
	case FaultDisconnect:
		f.Mode = o.enum("mode", "", disconnectModes...) // "" = by transport, in validate
	case FaultCancelRace:
		switch o.exactlyOneValue("at", "before_end") {
		case "at":
			f.At = o.enum("at", "", CancelRaceAtResponse)
		case "before_end":
			f.BeforeEnd = o.positive("before_end", 0)
		}
	case FaultStallRead:
		o.require("for")
		f.For = o.positive("for", 0)
	case FaultMalformed:
		o.require("mode")
		f.Mode = o.enum("mode", "", malformedModes...)
		if o.present("size") && f.Mode != MalformedOversize && f.Mode != "" {
			d.errorf(o.keyAt("size"), join(o.path, "size"), "applies only to mode oversize")
		}
		if f.Mode == MalformedOversize {
			f.Size = DefaultOversize
			if v, ok := parsed(o, "size", ParseByteSize); ok {
				if v < 1 {
					o.errf("size", "must be at least 1 byte")
				} else {
					f.Size = v
				}
			}
		}
	case FaultReissue:
		f.Max = int(o.intAtLeast("max", DefaultReissueMax, 1))
	}
	return f, refOf(o, "mode", "tools", "after_progress"), true
}

// anyFaultKey reports whether some fault kind accepts key.
func anyFaultKey(key string) bool {
	if key == "kind" || contains(perCallKeys, key) {
		return true
	}
	for _, s := range faultSpecs {
		if contains(s.keys, key) {
			return true
		}
	}
	return false
}
