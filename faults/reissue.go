package faults

import (
	"math/rand/v2"
)

// Reissue sends a call again, as a new request with a new id, after a
// fault cancelled or disconnected it, up to `max` times. 2026-07-28 has no
// stream resumption: a client that still wants the result MUST re-issue,
// and MUST NOT reuse the id. Re-issued calls carry no faults themselves and
// are recorded with the original's sequence number and their attempt.
//
// A correct server treats the re-issued request as new work (the orphan
// probes show whether the original's work also still runs) and answers it
// normally.
type Reissue struct{ perCall }

func (f *Reissue) Kind() string         { return "reissue" }
func (f *Reissue) Direction() Direction { return ClientToServer }

func (f *Reissue) Draw(rng *rand.Rand, info Info) (When, bool) {
	_, ok := f.draw(rng, info)
	return When{}, ok
}

// Act does nothing: the engine re-issues after the call ends.
func (f *Reissue) Act(Call, Info) (string, error) { return "", nil }

// Max returns how many times a call is re-issued.
func (f *Reissue) Max() int { return max(f.spec.Max, 1) }
