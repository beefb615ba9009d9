package scenarios

import (
	"encoding/json"
	"slices"
)

// Params is a mapping of a scenario file that another package decodes: a
// fault entry, whose kind's keys package faults owns. Read it with a
// Reader; the Reader's getters check and report like this package's own
// decoder, at the value's FILE:LINE:COLUMN and with the key path.
type Params struct {
	d    *decoder // the file's decoder, for its name and aliases
	path string   // "faults[2]"
	pos  Pos      // blamed for missing keys
	list []entry  // every key, in file order
}

// Read starts decoding p, with an error list of its own.
func (p Params) Read() *Reader {
	d := &decoder{budget: maxNodes}
	if p.d != nil {
		d.file, d.aliases, d.lookup = p.d.file, p.d.aliases, p.d.lookup
	}
	o := &object{d: d, path: p.path, pos: p.pos, ents: make(map[string]entry, len(p.list)), list: p.list}
	for _, e := range p.list {
		o.ents[e.key] = e
	}
	return &Reader{o: o}
}

// MarshalJSON writes the keys that package faults decodes, as written,
// so a results header's copy of the scenario shows them.
func (p Params) MarshalJSON() ([]byte, error) {
	out := map[string]any{}
	r := p.Read()
	for _, e := range p.list {
		if slices.Contains(faultKeys, e.key) {
			continue
		}
		if v, ok := r.o.d.anyValue(join(p.path, e.key), e.raw, 0); ok {
			out[e.key] = v
		}
	}
	return json.Marshal(out)
}

// Reader decodes the keys of Params. Each getter returns def (or ok=false)
// when the key is absent, null or invalid; an invalid value is reported.
// Err returns what was reported.
type Reader struct{ o *object }

// Keys returns every key of the mapping, in file order.
func (r *Reader) Keys() []string {
	keys := make([]string, len(r.o.list))
	for i, e := range r.o.list {
		keys[i] = e.key
	}
	return keys
}

// Errorf reports an error about key's value, at the value ("" names the
// mapping itself).
func (r *Reader) Errorf(key, format string, args ...any) { r.o.errf(key, format, args...) }

// KeyErrorf reports an error about key itself (that it is written), at
// the key.
func (r *Reader) KeyErrorf(key, format string, args ...any) {
	r.o.d.errorf(r.o.keyAt(key), join(r.o.path, key), format, args...)
}

// UnknownKeyErrorf reports a key that does not belong in the mapping, at
// the key, as the decoder reports its own unknown keys.
func (r *Reader) UnknownKeyErrorf(key, format string, args ...any) {
	r.o.d.errorf(r.o.keyAt(key), r.o.path, format, args...)
}

// Present reports whether key is written, even with a null value.
func (r *Reader) Present(key string) bool { return r.o.present(key) }

// Require reports each key that is absent or null.
func (r *Reader) Require(keys ...string) { r.o.require(keys...) }

// ExactlyOne reports an error unless exactly one of keys is written, with
// a value, and returns that one (or "").
func (r *Reader) ExactlyOne(keys ...string) string { return r.o.exactlyOneValue(keys...) }

// Bool returns a boolean.
func (r *Reader) Bool(key string, def bool) bool { return r.o.boolOr(key, def) }

// Enum returns one of allowed.
func (r *Reader) Enum(key, def string, allowed ...string) string {
	return r.o.enum(key, def, allowed...)
}

// IntBetween returns an integer from min to max.
func (r *Reader) IntBetween(key string, def, min, max int) int {
	return int(r.o.intBetween(key, int64(def), int64(min), int64(max)))
}

// Positive returns a duration > 0.
func (r *Reader) Positive(key string, def Duration) Duration { return r.o.positive(key, def) }

// Rate returns a rate.
func (r *Reader) Rate(key string) (Rate, bool) { return r.o.rate(key) }

// ByteSize returns a size from one byte to max.
func (r *Reader) ByteSize(key string, def, max ByteSize) ByteSize {
	v, ok := parsed(r.o, key, ParseByteSize)
	if !ok {
		return def
	}
	if v < 1 {
		r.o.errf(key, "must be at least 1 byte")
		return def
	}
	if v > max {
		r.o.errf(key, "size %q is larger than the most mcpchaos builds: %s", r.o.raw(key), max)
		return def
	}
	return v
}

// Err returns every problem reported so far as Errors in file order, or
// nil.
func (r *Reader) Err() error {
	if len(r.o.d.errs) == 0 {
		return nil
	}
	return r.o.d.errs.sorted()
}
