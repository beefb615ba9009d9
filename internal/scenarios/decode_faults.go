package scenarios

import "path"

// fault decodes the keys every entry of the faults list shares and keeps
// the entry for package faults, which decodes the rest (see Fault).
func (d *decoder) fault(it item) (Fault, ref, bool) {
	o := d.object(it.path, it.pos, it.raw)
	f := Fault{Pos: it.pos}
	if o.bad {
		return f, ref{}, false
	}
	o.require("kind")
	kind, ok := o.text("kind")
	if !ok {
		return f, ref{}, false
	}
	f.Kind = kind
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
	if dist, ok := o.dist("after"); ok {
		f.After = &dist
	}
	if o.has("after_progress") {
		f.AfterProgress = int(o.intBetween("after_progress", 0, 1, MaxCount))
	}
	f.Params = Params{d: d, path: o.path, pos: o.pos, list: o.list}
	return f, refOf(o, "tools", "after_progress"), true
}
