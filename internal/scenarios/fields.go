package scenarios

import (
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

// Getters with defaults and range checks, on top of object's typed
// getters. Each returns def when the key is absent, null or invalid (an
// invalid value has been reported).

func (o *object) stringOr(key, def string) string {
	if s, ok := o.str(key); ok && s != "" {
		return s
	}
	return def
}

func (o *object) boolOr(key string, def bool) bool {
	if b, ok := o.boolean(key); ok {
		return b
	}
	return def
}

// intBetween returns an integer from min to max.
func (o *object) intBetween(key string, def, min, max int64) int64 {
	v, ok := o.integer(key)
	if !ok {
		return def
	}
	if v < min {
		o.errf(key, "must be at least %d, got %d", min, v)
		return def
	}
	if v > max {
		o.errf(key, "must be at most %d, got %d", max, v)
		return def
	}
	return v
}

// numberBetween returns a number >= min (> min when strict) and <= max.
func (o *object) numberBetween(key string, def, min, max float64, strict bool) float64 {
	v, ok := o.number(key)
	if !ok {
		return def
	}
	if v < min || (strict && v == min) {
		word := "at least"
		if strict {
			word = "greater than"
		}
		o.errf(key, "must be %s %g, got %g", word, min, v)
		return def
	}
	if v > max {
		o.errf(key, "must be at most %g, got %g", max, v)
		return def
	}
	return v
}

// prob returns a probability in [0, 1].
func (o *object) prob(key string, def float64) float64 {
	v, ok := o.number(key)
	if !ok {
		return def
	}
	if v < 0 || v > 1 {
		o.errf(key, "probability %g is outside 0..1", v)
		return def
	}
	return v
}

// duration returns a duration from 0 to MaxDuration.
func (o *object) duration(key string, def Duration) Duration {
	if v, ok := parsed(o, key, ParseDuration); ok {
		if err := CheckDuration(v.Std()); err != nil {
			o.errf(key, "%v", err)
			return def
		}
		return v
	}
	return def
}

// positive returns a duration above 0 and at most MaxDuration.
func (o *object) positive(key string, def Duration) Duration {
	if !o.has(key) {
		return def
	}
	v := o.duration(key, -1)
	switch {
	case v < 0:
		return def
	case v == 0:
		o.errf(key, "must be positive, got %q", o.raw(key))
		return def
	}
	return v
}

// rate returns a rate of at most MaxRate.
func (o *object) rate(key string) (Rate, bool) {
	r, ok := parsed(o, key, knobs.ParseRate)
	if !ok {
		return Rate{}, false
	}
	if err := CheckRate(r); err != nil {
		o.errf(key, "%v", err)
		return Rate{}, false
	}
	return r, true
}

// dist returns a distribution of durations of at most MaxDuration.
func (o *object) dist(key string) (Dist, bool) {
	v, ok := parsed(o, key, ParseDist)
	if !ok {
		return Dist{}, false
	}
	for _, d := range []time.Duration{v.Value, v.Low, v.High, v.Mean} {
		if err := CheckDuration(d); err != nil {
			o.errf(key, "%v", err)
			return Dist{}, false
		}
	}
	return v, true
}

// enum returns one of allowed.
func (o *object) enum(key, def string, allowed ...string) string {
	s, ok := o.text(key)
	if !ok {
		return def
	}
	if !contains(allowed, s) {
		o.errf(key, "invalid value %q (want one of: %s)", s, strings.Join(allowed, ", "))
		return def
	}
	return s
}

// raw returns the text of a scalar value as written, for messages.
func (o *object) raw(key string) string {
	n, _, ok := o.value(key)
	if !ok {
		return ""
	}
	s, _ := scalarText(n)
	return s
}

// exactlyOne reports an error unless exactly one of keys is present (null
// counts as present), and returns the one present (or "").
func (o *object) exactlyOne(keys ...string) string {
	var found []string
	for _, k := range keys {
		if o.present(k) {
			found = append(found, k)
		}
	}
	if o.bad {
		return ""
	}
	switch len(found) {
	case 1:
		return found[0]
	case 0:
		o.d.errorf(o.pos, o.path, "want exactly one of %s", orList(keys))
	default:
		o.d.errorf(o.keyAt(found[1]), o.path, "want exactly one of %s, got both %s and %s", orList(keys), found[0], found[1])
	}
	return ""
}

// exactlyOneValue is exactlyOne where the key found must not be null.
func (o *object) exactlyOneValue(keys ...string) string {
	k := o.exactlyOne(keys...)
	if k != "" && !o.has(k) {
		o.require(k)
		return ""
	}
	return k
}

func orList(keys []string) string {
	if len(keys) <= 1 {
		return strings.Join(keys, "")
	}
	return strings.Join(keys[:len(keys)-1], ", ") + " or " + keys[len(keys)-1]
}

// intItem decodes one sequence element as an integer.
func (d *decoder) intItem(it item) (int64, bool) {
	o := &object{d: d, path: it.path, ents: map[string]entry{"": {raw: it.raw, keyPos: it.pos}}}
	return o.integer("")
}

// refOf remembers o's path and the value positions of keys.
func refOf(o *object, keys ...string) ref {
	r := ref{path: o.path, pos: map[string]Pos{}}
	for _, k := range keys {
		if o.present(k) {
			r.pos[k] = o.at(k)
		}
	}
	return r
}
