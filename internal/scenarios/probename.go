package scenarios

import (
	"fmt"
	"strings"
)

// ValidKeySegment reports whether s can be one segment of a check's
// dotted key: lower-case letters, digits, _ and -, at least one. The -
// lets names such as the default timeout policy fixed-60s, or a tool
// named get-weather, be written in a check as they are.
func ValidKeySegment(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !segmentRune(r) {
			return false
		}
	}
	return true
}

func segmentRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// KeySegment turns s into a valid key segment: lower case, with every
// character other than a letter, a digit, _ or - replaced by _.
func KeySegment(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if !segmentRune(r) {
			r = '_'
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// segmentError describes a name that is not a valid key segment: what it
// names, the key that addresses it (key, with NAME for the name), and
// the nearest valid name.
func segmentError(what, name, key string) string {
	return fmt.Sprintf("invalid %s name %q: checks address it as %s, so only lower-case letters, digits, _ and - (did you mean %q?)",
		what, name, key, KeySegment(name))
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
			o.errf("name", "%s", segmentError("probe", s, "cancellation.by_probe.NAME"))
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
