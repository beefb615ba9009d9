package summary

import "testing"

func TestFmtMs(t *testing.T) {
	tests := []struct {
		ms   float64
		want string
	}{
		{0, "0s"},
		{0.075, "75µs"},
		{0.85, "850µs"},
		{1, "1ms"},
		{1.234, "1.23ms"},
		{12.34, "12.3ms"},
		{123.4, "123ms"},
		{1500, "1.5s"},
		{2500, "2.5s"},
		{12345, "12.3s"},
		{90_000, "1m30s"},
		{-3, "-3ms"},
	}
	for _, tt := range tests {
		if got := fmtMs(tt.ms); got != tt.want {
			t.Errorf("fmtMs(%v) = %q, want %q", tt.ms, got, tt.want)
		}
	}
}

func TestFormatValue(t *testing.T) {
	tests := []struct {
		x    float64
		unit string
		want string
	}{
		{1.5, unitS, "1.5s"},
		{250, unitMs, "250ms"},
		{26, unitNone, "26"},
		{0.1234567, unitNone, "0.123"},
	}
	for _, tt := range tests {
		if got := formatValue(tt.x, tt.unit); got != tt.want {
			t.Errorf("formatValue(%v, %q) = %q, want %q", tt.x, tt.unit, got, tt.want)
		}
	}
}

func TestCheckUnit(t *testing.T) {
	tests := []struct{ check, want string }{
		{"p99(call) < 3s", unitMs},
		{"throttling.retry_after_s.max <= 2s", unitS},
		{"faults.cancel.timing_error_ms.p99 < 1ms", unitMs},
		{"calls.ok >= 1", unitNone},
		{"nonsense", unitNone},
	}
	for _, tt := range tests {
		if got := checkUnit(tt.check); got != tt.want {
			t.Errorf("checkUnit(%q) = %q, want %q", tt.check, got, tt.want)
		}
	}
}

func TestFmtNumRounds(t *testing.T) {
	tests := []struct {
		x    float64
		want string
	}{
		{3, "3"}, {1.515, "1.51"}, {0.6499999999999986, "0.65"}, {120.333, "120"}, {999.6, "1000"},
		{0.0004, "0"}, {0.001, "0.001"}, {-2.25, "-2.25"}, {1234567, "1234567"},
	}
	for _, tt := range tests {
		if got := fmtNum(tt.x); got != tt.want {
			t.Errorf("fmtNum(%v) = %q, want %q", tt.x, got, tt.want)
		}
	}
}
