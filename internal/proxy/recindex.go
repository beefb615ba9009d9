package proxy

// boundedIndex is a map with a cap: beyond cap entries, Put evicts the
// oldest (by insertion) and returns it, so an index the proxy keeps for a
// run of days stays within a known size. Entries taken out early leave a
// stale mark in the insertion order, which is dropped when the order grows
// to twice the cap. Not safe for concurrent use (the recorder's lock
// guards it).
type boundedIndex[V any] struct {
	cap   int
	m     map[string]indexed[V]
	order []indexKey // oldest first; an entry whose gen no longer matches m is stale
	gen   uint64
}

type indexed[V any] struct {
	v   V
	gen uint64
}

type indexKey struct {
	key string
	gen uint64
}

func newBoundedIndex[V any](cap int) *boundedIndex[V] {
	return &boundedIndex[V]{cap: cap, m: map[string]indexed[V]{}}
}

// Len is the number of entries.
func (x *boundedIndex[V]) Len() int { return len(x.m) }

// Get returns the entry for key.
func (x *boundedIndex[V]) Get(key string) (V, bool) {
	e, ok := x.m[key]
	return e.v, ok
}

// Put sets key to v (as the newest entry) and returns the entries evicted
// to stay within the cap, oldest first.
func (x *boundedIndex[V]) Put(key string, v V) (evicted []V) {
	x.gen++
	x.m[key] = indexed[V]{v: v, gen: x.gen}
	x.order = append(x.order, indexKey{key, x.gen})
	for len(x.m) > x.cap {
		k := x.order[0]
		x.order = x.order[1:]
		if e, ok := x.m[k.key]; ok && e.gen == k.gen {
			delete(x.m, k.key)
			evicted = append(evicted, e.v)
		}
	}
	if len(x.order) > 2*x.cap {
		live := x.order[:0]
		for _, k := range x.order {
			if e, ok := x.m[k.key]; ok && e.gen == k.gen {
				live = append(live, k)
			}
		}
		x.order = append([]indexKey(nil), live...) // let the old array go
	}
	return evicted
}

// Take removes the entry for key and returns it.
func (x *boundedIndex[V]) Take(key string) (V, bool) {
	e, ok := x.m[key]
	if ok {
		delete(x.m, key)
	}
	return e.v, ok
}

// TakeAll removes every entry and returns them, oldest first.
func (x *boundedIndex[V]) TakeAll() []V {
	var out []V
	for _, k := range x.order {
		if e, ok := x.m[k.key]; ok && e.gen == k.gen {
			out = append(out, e.v)
		}
	}
	x.m, x.order = map[string]indexed[V]{}, nil
	return out
}
