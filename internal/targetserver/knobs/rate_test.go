package knobs

import (
	"math"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	tests := []struct {
		in     string
		want   Rate
		perSec float64
		str    string
		err    string
	}{
		{"50/1s", Rate{50, time.Second}, 50, "50/1s", ""},
		{"50/s", Rate{50, time.Second}, 50, "50/1s", ""},
		{" 3000 / 1m ", Rate{3000, time.Minute}, 50, "3000/1m", ""},
		{"1/100ms", Rate{1, 100 * time.Millisecond}, 10, "1/100ms", ""},
		{"5/h", Rate{5, time.Hour}, 5.0 / 3600, "5/1h", ""},
		{"7/1m30s", Rate{7, 90 * time.Second}, 7.0 / 90, "7/1m30s", ""},
		{"1/us", Rate{1, time.Microsecond}, 1e6, "1/1µs", ""},
		{"50", Rate{}, 0, "", `invalid rate "50": missing the period (write 50/1s)`},
		{"fast", Rate{}, 0, "", `invalid rate "fast": want N/PERIOD such as 50/1s or 3000/1m`},
		{"x/1s", Rate{}, 0, "", `invalid rate "x/1s": count "x" is not an integer`},
		{"1.5/1s", Rate{}, 0, "", `invalid rate "1.5/1s": count "1.5" is not an integer`},
		{"0/1s", Rate{}, 0, "", `invalid rate "0/1s": count must be positive`},
		{"-5/1s", Rate{}, 0, "", `invalid rate "-5/1s": count must be positive`},
		{"5/0s", Rate{}, 0, "", `invalid rate "5/0s": period must be positive`},
		{"5/-1s", Rate{}, 0, "", `invalid rate "5/-1s": period "-1s" is not a duration or a unit such as s or 1m`},
		{"5/x", Rate{}, 0, "", `invalid rate "5/x": period "x" is not a duration or a unit such as s or 1m`},
		{"5/", Rate{}, 0, "", `invalid rate "5/": period "" is not a duration or a unit such as s or 1m`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRate(tt.in)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("= %+v, want %+v", got, tt.want)
			}
			if math.Abs(got.PerSecond()-tt.perSec) > 1e-9*tt.perSec {
				t.Errorf("PerSecond = %g, want %g", got.PerSecond(), tt.perSec)
			}
			if got.String() != tt.str {
				t.Errorf("String = %q, want %q", got.String(), tt.str)
			}
			again, err := ParseRate(got.String())
			if err != nil || again != got {
				t.Errorf("String does not round-trip: %v, %v", again, err)
			}
		})
	}
	if (Rate{}).PerSecond() != 0 || (Rate{}).String() != "" || !(Rate{}).IsZero() {
		t.Error("zero rate")
	}
	var r Rate
	if err := r.Set(""); err == nil {
		t.Error("Set accepted an empty rate")
	}
	if err := r.Set("10/s"); err != nil || r != (Rate{10, time.Second}) || r.Type() != "rate" {
		t.Errorf("Set: %v %v", r, err)
	}
}
