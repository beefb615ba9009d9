package report

import (
	"slices"
	"strings"
	"testing"
)

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

func TestWrap(t *testing.T) {
	text := "one two three four five six seven eight nine ten"
	lines := wrap(text, 14)
	for _, l := range lines {
		if len(l) > 14 {
			t.Errorf("line %q is longer than 14", l)
		}
	}
	if got := strings.Join(lines, " "); got != text {
		t.Errorf("wrap lost words: %q", got)
	}
	if got := wrap("averyveryverylongword x", 5); got[0] != "averyveryverylongword" {
		t.Errorf("a long word was split: %q", got)
	}
}

func TestTextItemsWrap(t *testing.T) {
	var out textOut
	var items []string
	for i := 0; i < 30; i++ {
		items = append(items, "item_number")
	}
	out.items("Label", items...)
	for _, l := range strings.Split(strings.TrimSuffix(out.b.String(), "\n"), "\n") {
		if len(l) > lineWidth {
			t.Errorf("line of %d bytes: %q", len(l), l)
		}
	}
	if strings.Count(out.b.String(), "item_number") != 30 {
		t.Error("items were lost")
	}
}

func TestDurColumn(t *testing.T) {
	tests := []struct {
		name string
		ms   []float64
		want []string
	}{
		{"ms, whole", []float64{35.2, 0.85, 120}, []string{"35ms", "1ms", "120ms"}},
		{"ms up to 10 s", []float64{48, 1.2, 6200}, []string{"48ms", "1ms", "6200ms"}},
		{"small values get decimals", []float64{0.2, 45}, []string{"0.2ms", "45.0ms"}},
		{"microseconds", []float64{0.732, 0.007, 0}, []string{"732µs", "7µs", "0µs"}},
		{"seconds", []float64{260, 12000}, []string{"0.3s", "12.0s"}},
		{"no float noise", []float64{0.6499999999999986, 2}, []string{"0.65ms", "2.00ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := durColumn(tt.ms); !slices.Equal(got, tt.want) {
				t.Errorf("durColumn(%v) = %q, want %q", tt.ms, got, tt.want)
			}
		})
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
