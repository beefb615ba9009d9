package scenarios

import "testing"

func TestSuggest(t *testing.T) {
	known := []string{"cancel", "cancel_race", "disconnect", "calls.ok"}
	for _, tt := range []struct{ name, want string }{
		{"cancl", "cancel"},
		{"cancel_rase", "cancel_race"},
		{"disconect", "disconnect"},
		{"calls.ko", "calls.ok"},
		{"nope", ""},
		{"", ""},
	} {
		if got := Suggest(tt.name, known); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
