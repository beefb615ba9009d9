package results

// spare holds the maps, slices and pointers of one Record slot between
// the lines decoded into it, so that a scan whose handler keeps none of
// them (Handler.Reuse) allocates them once rather than per line. Each one
// is lent to the record cleared, only when its member is present, so the
// record decodes exactly as into a zero Record. A nil spare lends nothing:
// every container is new.
type spare struct {
	pol                map[string]string
	violations, inputs Counts
	prog               *Progress
	values             []float64
	faults             []Fault
	tsk                *Task
	ints               [4]int64
	// polRaw and valRaw are the policies object and the progress values
	// that pol and values hold (lexer.cached).
	polRaw, valRaw []byte
}

func (sp *spare) policies() map[string]string {
	if sp == nil {
		return map[string]string{}
	}
	if sp.pol == nil {
		sp.pol = map[string]string{}
	}
	clear(sp.pol)
	return sp.pol
}

// counts lends the violations (inputs false) or the inputs, cleared.
func (sp *spare) counts(inputs bool) Counts {
	if sp == nil {
		return Counts{}
	}
	c := &sp.violations
	if inputs {
		c = &sp.inputs
	}
	if *c == nil {
		*c = Counts{}
	}
	clear(*c)
	return *c
}

func (sp *spare) progress() *Progress {
	if sp == nil {
		return &Progress{}
	}
	if sp.prog == nil {
		sp.prog = &Progress{}
	}
	*sp.prog = Progress{}
	return sp.prog
}

// floats lends an empty (not nil) slice for progress values.
func (sp *spare) floats() []float64 {
	if sp == nil || sp.values == nil {
		return []float64{}
	}
	return sp.values[:0]
}

// faultList lends an empty (not nil) slice of faults; keepFaults takes it
// back once appended to.
func (sp *spare) faultList() []Fault {
	if sp == nil || sp.faults == nil {
		return []Fault{}
	}
	return sp.faults[:0]
}

func (sp *spare) keepFaults(f []Fault) {
	if sp != nil {
		sp.faults = f
	}
}

func (sp *spare) task() *Task {
	if sp == nil {
		return &Task{}
	}
	if sp.tsk == nil {
		sp.tsk = &Task{}
	}
	*sp.tsk = Task{}
	return sp.tsk
}

// int64 returns a pointer to v: the i-th of the spare's integers (code,
// retry_after_ms, retry_hint_ms, ratelimit_reset_ms).
func (sp *spare) int64(i int, v int64) *int64 {
	if sp == nil {
		return &v
	}
	sp.ints[i] = v
	return &sp.ints[i]
}
