package faults

import (
	"math/rand/v2"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// Reissue sends a call again, as a new request with a new id, after a
// fault cancelled or disconnected it, up to `max` times (default 1).
// 2026-07-28 has no stream resumption: a client that still wants the
// result MUST re-issue, and MUST NOT reuse the id. Re-issued calls carry
// no faults themselves and are recorded with the original's sequence
// number and their attempt.
//
// A correct server treats the re-issued request as new work (the orphan
// probes show whether the original's work also still runs) and answers it
// normally.
type Reissue struct {
	perCall
	max int
}

// MaxReissues bounds a reissue fault's max.
const MaxReissues = 100

var reissueKind = kind{name: faultkinds.Reissue, perCall: true, keys: []scenarios.Field{{Name: "max", Type: scenarios.IntBetweenType(1, MaxReissues), Doc: "re-issues per call; default 1"}},
	build: func(b builder) Fault { return &Reissue{b.perCall(), b.r.IntBetween("max", 1, 1, MaxReissues)} }}

func (f *Reissue) Draw(rng *rand.Rand, info Info) (When, bool) {
	_, ok := f.draw(rng, info)
	return When{}, ok
}

// Reissues returns how many times a call is re-issued.
func (f *Reissue) Reissues() int { return f.max }
