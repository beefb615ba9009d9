package scenarios

import "strings"

// ValidKeySegment reports whether s can be one segment of a check's
// dotted key: lower-case letters, digits and _, at least one.
func ValidKeySegment(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}

// KeySegment turns s into a valid key segment: lower case, with every
// character other than a letter, a digit or _ replaced by _.
func KeySegment(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') {
			r = '_'
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// DefaultProbeName is a probe's name when its entry has no name key:
// metric_METRIC, tool_TOOL (each made a valid key segment, see
// KeySegment), log_stderr, log_file, or the probe's kind.
func DefaultProbeName(p Probe) string {
	switch {
	case p.Metric != nil:
		return "metric_" + KeySegment(p.Metric.Name)
	case p.Tool != nil:
		return "tool_" + KeySegment(p.Tool.Name)
	case p.Log != nil && p.Log.Stderr:
		return "log_stderr"
	case p.Log != nil:
		return "log_file" // not the path: it may hold an expanded secret
	}
	return p.Kind()
}

// probeName decodes the name key of a probe entry (or gives the default)
// and reports a name that is not a valid key segment, or one that an
// earlier probe of the list already has (seen: name to its position).
func (d *decoder) probeName(o *object, p Probe, seen map[string]Pos) string {
	name := DefaultProbeName(p)
	at := p.Pos
	if s, ok := o.str("name"); ok {
		if !ValidKeySegment(s) {
			o.errf("name", "invalid probe name %q: checks address it as cancellation.by_probe.NAME, so only lower-case letters, digits and _", s)
			return s
		}
		name, at = s, o.at("name")
	}
	if first, ok := seen[name]; ok {
		path, hint := o.path, "; give one of them a name key"
		if o.has("name") {
			path, hint = join(o.path, "name"), ""
		}
		d.errorf(at, path, "duplicate probe name %q (the probe at line %d, column %d has it too%s)", name, first.Line, first.Column, hint)
		return name
	}
	seen[name] = at
	return name
}
