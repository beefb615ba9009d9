package scenarios

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

// DistKind is the shape of a Dist.
type DistKind uint8

// The distribution shapes.
const (
	DistFixed   DistKind = iota // always Value
	DistUniform                 // uniform in [Low, High]
	DistExp                     // exponential with mean Mean
)

// Dist is a distribution of durations, written as a fixed duration ("1s"),
// "uniform(LOW, HIGH)" or "exp(MEAN)". The zero Dist is fixed at 0.
type Dist struct {
	Kind  DistKind
	Value time.Duration // DistFixed
	Low   time.Duration // DistUniform, inclusive
	High  time.Duration // DistUniform, inclusive
	Mean  time.Duration // DistExp
}

// ParseDist parses a distribution. All durations must be non-negative, a
// uniform's LOW must not exceed its HIGH, and an exponential's mean must
// be positive.
func ParseDist(s string) (Dist, error) {
	t := strings.TrimSpace(s)
	name, rest, isCall := strings.Cut(t, "(")
	if !isCall {
		d, err := time.ParseDuration(t)
		if err != nil {
			return Dist{}, fmt.Errorf("invalid distribution %q: want a duration (1s), uniform(LOW, HIGH) or exp(MEAN)", s)
		}
		if d < 0 {
			return Dist{}, fmt.Errorf("invalid distribution %q: must not be negative", s)
		}
		return Dist{Kind: DistFixed, Value: d}, nil
	}
	name = strings.TrimSpace(name)
	inner, ok := strings.CutSuffix(rest, ")")
	if !ok {
		return Dist{}, fmt.Errorf("invalid distribution %q: missing closing parenthesis", s)
	}
	args := strings.Split(inner, ",")
	durs := make([]time.Duration, len(args))
	for i, a := range args {
		a = strings.TrimSpace(a)
		d, err := time.ParseDuration(a)
		if err != nil {
			return Dist{}, fmt.Errorf("invalid distribution %q: argument %q is not a duration", s, a)
		}
		if d < 0 {
			return Dist{}, fmt.Errorf("invalid distribution %q: argument %q is negative", s, a)
		}
		durs[i] = d
	}
	switch name {
	case "uniform":
		if len(durs) != 2 {
			return Dist{}, fmt.Errorf("invalid distribution %q: uniform takes two durations, LOW and HIGH", s)
		}
		if durs[0] > durs[1] {
			return Dist{}, fmt.Errorf("invalid distribution %q: low %s is above high %s", s, knobs.FormatDuration(durs[0]), knobs.FormatDuration(durs[1]))
		}
		return Dist{Kind: DistUniform, Low: durs[0], High: durs[1]}, nil
	case "exp":
		if len(durs) != 1 {
			return Dist{}, fmt.Errorf("invalid distribution %q: exp takes one duration, the mean", s)
		}
		if durs[0] <= 0 {
			return Dist{}, fmt.Errorf("invalid distribution %q: the mean must be positive", s)
		}
		return Dist{Kind: DistExp, Mean: durs[0]}, nil
	}
	return Dist{}, fmt.Errorf("invalid distribution %q: unknown function %q (want uniform or exp)", s, name)
}

// Sample draws one duration from d using r. Fixed returns Value; uniform
// returns a value in [Low, High]; exponential returns a non-negative value
// with mean Mean (capped at the largest time.Duration).
func (d Dist) Sample(r *rand.Rand) time.Duration {
	switch d.Kind {
	case DistUniform:
		if d.High <= d.Low {
			return d.Low
		}
		// Low >= 0, so the span fits in an int64 and span+1 in a uint64.
		span := uint64(d.High - d.Low)
		return d.Low + time.Duration(r.Uint64N(span+1))
	case DistExp:
		v := r.ExpFloat64() * float64(d.Mean)
		if v >= math.MaxInt64 {
			return math.MaxInt64
		}
		return time.Duration(v)
	}
	return d.Value
}

// String formats d the way ParseDist reads it.
func (d Dist) String() string {
	switch d.Kind {
	case DistUniform:
		return "uniform(" + knobs.FormatDuration(d.Low) + ", " + knobs.FormatDuration(d.High) + ")"
	case DistExp:
		return "exp(" + knobs.FormatDuration(d.Mean) + ")"
	}
	return knobs.FormatDuration(d.Value)
}

// MarshalText implements encoding.TextMarshaler.
func (d Dist) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Dist) UnmarshalText(b []byte) error {
	v, err := ParseDist(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Set implements the flag.Value and pflag.Value interfaces.
func (d *Dist) Set(s string) error { return d.UnmarshalText([]byte(s)) }

// Type implements pflag.Value.
func (d *Dist) Type() string { return "distribution" }
