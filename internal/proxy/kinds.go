package proxy

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// kinds builds the proxy's fault kinds: one entry for each kind the
// registry (faultkinds.Table) gives to faultkinds.Proxy, which holds their
// names, their order and what a correct client does under each. Each
// kind's file defines its entry; TestRegistry fails when this list and the
// registry differ.
var kinds = [...]kind{
	progressEndlessKind,
	throttleKind,
	delayResponseKind,
	dropResponseKind,
	serverCancelKind,
	progressFloodKind,
	progressStallKind,
	progressRegressKind,
	progressAfterResponseKind,
	disconnectKind,
}

// kind is one fault kind: its name, its own keys (besides kind,
// probability and tools) and how to build it from a proxy file's entry.
type kind struct {
	name string
	keys []string
	// timed kinds take after: when, from the request, the fault acts.
	timed bool
	build func(r *scenarios.Reader) effect
}

// effect is what a fault does to one call: it fills in the plan.
type effect interface {
	// apply changes the plan; after is the fault's drawn after (0 when
	// the kind is not timed or the entry has none).
	apply(p *plan, after time.Duration)
}

// fault is one entry of the proxy file's faults list.
type fault struct {
	spec   scenarios.Fault
	kind   string
	effect effect
}

// plan is what the proxy does to one call; the zero plan forwards it
// untouched.
type plan struct {
	kinds []string // the faults that hit, for the record

	throttle *throttleReply // answer at once, without forwarding

	endless     bool          // withhold everything upstream sends, send own progress
	endlessTick time.Duration // the period of that progress
	drop        bool          // withhold the final response
	delay       time.Duration // hold the final response until this long after the request

	serverCancel      bool
	serverCancelAfter time.Duration

	floodEvery time.Duration // >0: extra progress at this period

	stall      bool // from stallAfter, swallow everything and hold the call
	stallAfter time.Duration

	regress      bool // after regressAfter, one progress lower than the last
	regressAfter time.Duration

	afterResponse bool // one progress after the final response

	disconnect      bool // cut the client's connection at disconnectAfter
	disconnectRST   bool
	disconnectAfter time.Duration
}

// rewrites reports whether the plan changes the response stream, so the
// proxy must answer with its own SSE stream.
func (p *plan) rewrites() bool {
	return p.endless || p.drop || p.delay > 0 || p.serverCancel || p.floodEvery > 0 ||
		p.stall || p.regress || p.afterResponse || p.disconnect
}

// holds reports whether the plan keeps the call open without an answer.
func (p *plan) holds() bool { return p.endless || p.drop || p.stall }

// newFaults builds the faults of a proxy file; every problem is a
// scenarios.Errors entry naming FILE:LINE:COLUMN.
func newFaults(specs []scenarios.Fault) ([]fault, error) {
	var out []fault
	var errs scenarios.Errors
	for _, spec := range specs {
		f, err := newFault(spec)
		if err != nil {
			var list scenarios.Errors
			if errors.As(err, &list) {
				errs = append(errs, list...)
				continue
			}
			return nil, err
		}
		out = append(out, f)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

func newFault(spec scenarios.Fault) (fault, error) {
	r := spec.Params.Read()
	k, ok := lookup(spec.Kind)
	if !ok {
		hint := faultkinds.Elsewhere(spec.Kind, faultkinds.Proxy)
		if s := scenarios.Suggest(spec.Kind, kindNames()); hint == "" && s != "" {
			hint = fmt.Sprintf("did you mean %q? ", s)
		}
		r.Errorf("kind", "unknown proxy fault kind %q (%sknown: %s)", spec.Kind, hint, strings.Join(kindNames(), ", "))
		return fault{}, r.Err()
	}
	allowed := append(append([]string{"kind"}, scenarios.PerCallKeys()...), k.keys...)
	if k.timed {
		allowed = append(allowed, "after")
	}
	for _, key := range r.Keys() {
		if !slices.Contains(allowed, key) {
			r.UnknownKeyErrorf(key, "unknown key %q for proxy fault %s (known: %s)", key, k.name, strings.Join(allowed, ", "))
		}
	}
	e := k.build(r)
	if err := r.Err(); err != nil {
		return fault{}, err
	}
	return fault{spec: spec, kind: k.name, effect: e}, nil
}

// kindNames lists the proxy's kinds, in documentation order (the
// registry's).
func kindNames() []string { return faultkinds.Names(faultkinds.Proxy) }

// lookup returns the builder of the kind named name, when the registry
// gives the kind to the proxy.
func lookup(name string) (kind, bool) {
	i := slices.IndexFunc(kinds[:], func(k kind) bool { return k.name == name })
	if i < 0 || !faultkinds.Injects(name, faultkinds.Proxy) {
		return kind{}, false
	}
	return kinds[i], true
}

// draw decides whether f hits a call of tool, drawing the same numbers
// from rng whatever it decides, so later faults see the same numbers.
func (f fault) draw(rng *rand.Rand, tool string) bool {
	hit := rng.Float64() < f.spec.Probability
	return hit && f.spec.AppliesTo(tool)
}

// after draws the fault's after, 0 when it has none.
func (f fault) after(rng *rand.Rand) time.Duration {
	if f.spec.After == nil {
		return 0
	}
	return f.spec.After.Sample(rng)
}
