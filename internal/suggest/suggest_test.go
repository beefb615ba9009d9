package suggest

import "testing"

func TestClosest(t *testing.T) {
	known := []string{"cancel", "cancel_race", "disconnect", "calls.ok"}
	for _, tt := range []struct{ name, want string }{
		{"cancl", "cancel"},
		{"cancel_rase", "cancel_race"},
		{"disconect", "disconnect"},
		{"calls.ko", "calls.ok"},
		{"nope", ""},
		{"", ""},
	} {
		if got := Closest(tt.name, known); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
