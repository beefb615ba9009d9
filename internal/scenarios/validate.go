package scenarios

import (
	"strings"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// ref remembers where a decoded list entry and some of its keys stand, for
// the checks that span sections.
type ref struct {
	path string
	pos  map[string]Pos // key → value position
}

// at returns the position of key's value, or of the entry.
func (r ref) at(key string, entry Pos) Pos {
	if p, ok := r.pos[key]; ok && p.IsValid() {
		return p
	}
	return entry
}

// validate runs the checks that span sections, once every section is
// decoded. The checks within one mapping happen while decoding it.
func (d *decoder) validate(s *Scenario) {
	if b := s.Target.Builtin; b != nil {
		switch {
		case b.Era == Era2026 && vocab.IsLegacy(s.Protocol) && s.Protocol != Protocol20241105:
			// (2024-11-05 has an error of its own: validateProtocol)
			d.errorf(d.eraPos, "target.builtin.era", "a 2026-only target cannot speak protocol %s", s.Protocol)
		case b.Era == Era2025 && vocab.IsModern(s.Protocol):
			d.errorf(d.eraPos, "target.builtin.era", "a 2025-only target cannot speak protocol %s", s.Protocol)
		}
	}
	d.validateProtocol(s)
	for i, f := range s.Faults {
		d.validateFault(s, f, d.faultRefs[i])
	}
	d.validateLogProbes(s)
	d.validateIDs(s)
	for i, p := range s.Orphans.Probes {
		if p.Process != nil && p.Process.PID == 0 && s.Target.HTTP != nil {
			d.errorf(p.Pos, d.probeRefs[i].path+".process", "pid is required with an http target (mcpchaos knows the pids only of servers it starts)")
		}
	}
}

// validateProtocol: protocol 2024-11-05 names the HTTP+SSE transport, so
// it needs an http target whose transport is sse or auto (which it then
// makes sse).
func (d *decoder) validateProtocol(s *Scenario) {
	if s.Protocol != Protocol20241105 {
		return
	}
	h := s.Target.HTTP
	switch {
	case h == nil && (s.Target.Stdio != nil || s.Target.Builtin != nil):
		d.errorf(d.protocolPos, "protocol", "2024-11-05 is the HTTP+SSE transport, for http targets; a stdio or builtin server that speaks 2024-11-05 is found with protocol: auto")
	case h == nil:
	case h.Transport == HTTPStreamable:
		d.errorf(d.transportPos, "target.http.transport", "protocol 2024-11-05 is the HTTP+SSE transport; use transport: sse (or auto), or a 2025 or 2026 protocol with streamable")
	default:
		h.Transport = HTTPSSE
	}
}

// validateLogProbes: a log probe reads stderr only from servers mcpchaos
// starts as subprocesses (a stdio target; the builtin target when its
// transport is stdio).
func (d *decoder) validateLogProbes(s *Scenario) {
	stdio := s.Target.Stdio != nil || (s.Target.Builtin != nil && s.Target.Builtin.Transport == TransportStdio)
	for i, p := range s.Orphans.Probes {
		if p.Log != nil && p.Log.Stderr && !stdio {
			d.errorf(p.Log.stderrAt, d.probeRefs[i].path+".log.stderr",
				"stderr: true needs a stdio target (mcpchaos reads the stderr only of servers it starts); use file: PATH")
		}
	}
}

// validateFault checks the keys every fault shares against the calls.
// (Package faults checks each kind's own keys.)
func (d *decoder) validateFault(s *Scenario, f Fault, r ref) {
	if len(s.Calls) == 0 {
		return
	}
	var matched []Call
	for _, c := range s.Calls {
		if f.AppliesTo(c.Tool) {
			matched = append(matched, c)
		}
	}
	if len(matched) == 0 {
		d.errorf(r.at("tools", f.Pos), r.path+".tools", "%s matches no tool in calls", quoteList(f.Tools))
		return
	}
	if f.AfterProgress > 0 {
		for _, c := range matched {
			if c.Progress {
				return
			}
		}
		d.errorf(r.at("after_progress", f.Pos), r.path+".after_progress", "none of the calls it applies to asks for progress")
	}
}

func quoteList(pats []string) string {
	q := make([]string, len(pats))
	for i, p := range pats {
		q[i] = `"` + p + `"`
	}
	return strings.Join(q, ", ")
}
