package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

// Duration is a time.Duration written as a Go duration string ("250ms",
// "2s", "1m30s") in scenario files and flags.
type Duration time.Duration

// ParseDuration parses a Go duration string. Negative durations are
// rejected: no key of a scenario takes one.
func ParseDuration(s string) (Duration, error) {
	t := strings.TrimSpace(s)
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: want a Go duration such as 250ms, 2s or 1m30s", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("invalid duration %q: must not be negative", s)
	}
	return Duration(d), nil
}

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String formats d compactly ("1m" rather than "1m0s"); ParseDuration
// accepts the result.
func (d Duration) String() string { return knobs.FormatDuration(time.Duration(d)) }

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Set implements the flag.Value and pflag.Value interfaces.
func (d *Duration) Set(s string) error { return d.UnmarshalText([]byte(s)) }

// Type implements pflag.Value.
func (d *Duration) Type() string { return "duration" }
