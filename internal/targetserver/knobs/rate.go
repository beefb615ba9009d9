package knobs

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Rate is a number of events per period, written "N/PERIOD": "50/1s",
// "50/s", "3000/1m". PERIOD is a Go duration or a bare unit (ns, us, ms, s,
// m, h) meaning one of it. The zero Rate means "not set".
type Rate struct {
	Freq int
	Per  time.Duration
}

// ParseRate parses "N/PERIOD". N must be a positive integer and PERIOD a
// positive duration.
func ParseRate(s string) (Rate, error) {
	t := strings.TrimSpace(s)
	n, per, ok := strings.Cut(t, "/")
	if !ok {
		if _, err := strconv.Atoi(t); err == nil {
			return Rate{}, fmt.Errorf("invalid rate %q: missing the period (write %s/1s)", s, t)
		}
		return Rate{}, fmt.Errorf("invalid rate %q: want N/PERIOD such as 50/1s or 3000/1m", s)
	}
	n, per = strings.TrimSpace(n), strings.TrimSpace(per)
	freq, err := strconv.Atoi(n)
	if err != nil {
		return Rate{}, fmt.Errorf("invalid rate %q: count %q is not an integer", s, n)
	}
	if freq <= 0 {
		return Rate{}, fmt.Errorf("invalid rate %q: count must be positive", s)
	}
	period := per
	if period != "" && (period[0] < '0' || period[0] > '9') && period[0] != '.' {
		period = "1" + period
	}
	p, err := time.ParseDuration(period)
	if err != nil {
		return Rate{}, fmt.Errorf("invalid rate %q: period %q is not a duration or a unit such as s or 1m", s, per)
	}
	if p <= 0 {
		return Rate{}, fmt.Errorf("invalid rate %q: period must be positive", s)
	}
	return Rate{Freq: freq, Per: p}, nil
}

// IsZero reports whether r is unset.
func (r Rate) IsZero() bool { return r.Freq == 0 && r.Per == 0 }

// PerSecond returns the rate in events per second (0 for an unset rate).
func (r Rate) PerSecond() float64 {
	if r.Per <= 0 {
		return 0
	}
	return float64(r.Freq) / r.Per.Seconds()
}

// String formats r as "N/PERIOD" ("50/1s", "3000/1m"); the zero Rate
// formats as "".
func (r Rate) String() string {
	if r.IsZero() {
		return ""
	}
	return strconv.Itoa(r.Freq) + "/" + FormatDuration(r.Per)
}

// MarshalText implements encoding.TextMarshaler.
func (r Rate) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler. The empty text is
// the zero Rate, so that String and UnmarshalText round-trip.
func (r *Rate) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*r = Rate{}
		return nil
	}
	v, err := ParseRate(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Set implements the flag.Value and pflag.Value interfaces; unlike
// UnmarshalText it rejects the empty string.
func (r *Rate) Set(s string) error {
	v, err := ParseRate(s)
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Type implements pflag.Value.
func (r *Rate) Type() string { return "rate" }

// FormatDuration is time.Duration.String without trailing zero units ("1m"
// rather than "1m0s"); time.ParseDuration reads the result.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
