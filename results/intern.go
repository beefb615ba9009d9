package results

// interner hands out one string for each of the few names that repeat from
// line to line of a results file (tools, outcomes, policy names and
// values, fault kinds), so decoding a call line does not allocate them
// again. It is bounded: past maxInterned names, or for a name longer than
// maxInternLen, it allocates as a plain conversion would. One decoder owns
// it; a nil interner only converts.
type interner struct {
	m map[string]string
	// recent holds names found lately, by a cheap hash of their bytes: a
	// hit costs one comparison instead of a map lookup.
	recent [64]string
}

const (
	maxInterned  = 256
	maxInternLen = 64
)

// get returns b as a string, the interned one when there is one.
func (in *interner) get(b []byte) string {
	if in == nil || len(b) == 0 {
		return string(b)
	}
	slot := &in.recent[(len(b)*7+int(b[0])*3+int(b[len(b)-1]))&(len(in.recent)-1)]
	if *slot == string(b) { // no allocation for the comparison
		return *slot
	}
	if s, ok := in.m[string(b)]; ok { // nor for the lookup
		*slot = s
		return s
	}
	s := string(b)
	if len(in.m) < maxInterned && len(b) <= maxInternLen {
		if in.m == nil {
			in.m = make(map[string]string)
		}
		in.m[s] = s
		*slot = s
	}
	return s
}
