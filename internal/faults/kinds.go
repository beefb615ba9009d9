package faults

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// kinds builds the kinds a scenario's faults may name: one entry for each
// kind the registry (faultkinds.Table) gives to faultkinds.Client, which
// holds their names, their order and what a correct server does under
// each. Each kind's file defines its entry; adding a kind is its line in
// the registry, that file and one line here (TestRegistry fails when this
// list and the registry differ).
var kinds = [...]kind{
	cancelKind,
	disconnectKind,
	cancelRaceKind,
	stallReadKind,
	malformedKind,
	reissueKind,
	badRetryKind,
	sameIDRetryKind,
	fastPollKind,
	notifyFloodKind,
	cancelUnknownKind,
}

// kind is one fault kind: its name, which of the keys every fault shares
// apply to it, its own keys, and how to build it from a scenario entry.
type kind struct {
	name string
	// perCall kinds take probability and tools; timed ones take after,
	// after_progress, or both (after is then after_progress's fallback).
	perCall, timed bool
	// cuts kinds stop calls the server may go on with: the engine takes
	// quiet windows of its own accord to measure leftover work after them
	// (engine/autowindows.go).
	cuts bool
	keys []scenarios.Field // its own keys, with their types
	// build decodes the kind's own keys with b.r (which reports what is
	// wrong) and returns the fault.
	build func(b builder) Fault
}

// builder is what a kind's build gets: the entry, a reader for its keys
// and the scenario's target transport ("http" or "stdio").
type builder struct {
	spec      scenarios.Fault
	r         *scenarios.Reader
	transport string
	kind      string
}

func (b builder) perCall() perCall { return perCall{spec: b.spec, kind: b.kind} }

// New builds the fault a scenario entry describes, for a target of the
// given transport ("http" or "stdio"). It decodes and checks the keys of
// the entry's kind; every problem is a scenarios.Errors entry naming
// FILE:LINE:COLUMN of the value (an unknown kind is one too).
func New(spec scenarios.Fault, transport string) (Fault, error) {
	r := spec.Params.Read()
	k, ok := lookup(spec.Kind)
	if !ok {
		r.Errorf("kind", "unknown fault kind %q (%sknown: %s)", spec.Kind, didYouMean(spec.Kind), strings.Join(Kinds(), ", "))
		return nil, r.Err()
	}
	k.checkKeys(r)
	for _, f := range k.keys {
		if f.Required {
			r.Require(f.Name)
		}
	}
	if k.timed && !r.Present("after_progress") {
		// after_progress may have after beside it: its time fallback
		// (engine/progressfallback.go).
		if r.Present("after") {
			r.Require("after") // after: null
		} else {
			r.Errorf("", "want after, after_progress, or both")
		}
	}
	f := k.build(builder{spec: spec, r: r, transport: transport, kind: k.name})
	if err := r.Err(); err != nil {
		return nil, err
	}
	return f, nil
}

// allowed returns every key a fault of this kind accepts.
func (k kind) allowed() []string {
	keys := []string{"kind"}
	if k.perCall {
		keys = append(keys, scenarios.PerCallKeys()...)
	}
	if k.timed {
		keys = append(keys, scenarios.TimedKeys()...)
	}
	for _, f := range k.keys {
		keys = append(keys, f.Name)
	}
	return keys
}

// Schemas describes every kind for the scenario schema (mcpchaos schema),
// in documentation order.
func Schemas() []scenarios.FaultKind {
	var out []scenarios.FaultKind
	for _, name := range Kinds() {
		if k, ok := lookup(name); ok {
			out = append(out, scenarios.FaultKind{Name: k.name, PerCall: k.perCall, Timed: k.timed, Fields: k.keys})
		}
	}
	return out
}

// lookup returns the builder of the kind named name, when the registry
// gives the kind to the client.
func lookup(name string) (kind, bool) {
	i := slices.IndexFunc(kinds[:], func(k kind) bool { return k.name == name })
	if i < 0 || !faultkinds.Injects(name, faultkinds.Client) {
		return kind{}, false
	}
	return kinds[i], true
}

// checkKeys reports every key of the entry that the kind does not take.
func (k kind) checkKeys(r *scenarios.Reader) {
	allowed := k.allowed()
	for _, key := range r.Keys() {
		switch {
		case slices.Contains(allowed, key):
		case anyKindTakes(key):
			r.UnknownKeyErrorf(key, "key %q does not apply to kind %s (allowed: %s)", key, k.name, strings.Join(allowed, ", "))
		default:
			r.UnknownKeyErrorf(key, "unknown key %q (allowed for kind %s: %s)", key, k.name, strings.Join(allowed, ", "))
		}
	}
}

// anyKindTakes reports whether some fault kind accepts key.
func anyKindTakes(key string) bool {
	for _, k := range kinds {
		if slices.Contains(k.allowed(), key) {
			return true
		}
	}
	return false
}

// Kinds returns the name of every fault kind of a scenario, in
// documentation order (the registry's): the values of the <kind> segment
// of a check's faults.<kind>... keys.
func Kinds() []string { return faultkinds.Names(faultkinds.Client) }

// CutsCalls reports whether faults of the kind stop calls the server may
// go on with (cancel, disconnect): the leftover work they may leave is
// what quiet windows measure.
func CutsCalls(name string) bool {
	k, ok := lookup(name)
	return ok && k.cuts
}

// didYouMean says that a kind of the proxy is not a scenario's, or
// suggests the kind closest to a misspelt one ("" when none is close).
func didYouMean(name string) string {
	if hint := faultkinds.Elsewhere(name, faultkinds.Client); hint != "" {
		return hint
	}
	if best := scenarios.Suggest(name, Kinds()); best != "" {
		return fmt.Sprintf("did you mean %q? ", best)
	}
	return ""
}

// rateKeys are the keys of a background fault.
var rateKeys = []scenarios.Field{{Name: "rate", Type: scenarios.RateType(), Required: true, Doc: "how often, N/PERIOD"}}

// background holds what every background fault shares: its kind and its
// rate. A background fault acts on no call.
type background struct {
	kind string
	rate scenarios.Rate
}

func (b background) Kind() string                     { return b.kind }
func (b background) Rate() scenarios.Rate             { return b.rate }
func (background) Draw(*rand.Rand, Info) (When, bool) { return When{}, false }
func (b builder) background() background {
	rate, _ := b.r.Rate("rate")
	return background{kind: b.kind, rate: rate}
}
