package text

import (
	"slices"
	"strings"
	"testing"
)

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
