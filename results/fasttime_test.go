package results

import (
	"reflect"
	"testing"
	"time"
)

// TestParseUTC: the writer's times parse as UnmarshalJSON parses them;
// anything else is left to it.
func TestParseUTC(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		ok       bool
	}{
		{"whole second", "2026-07-28T12:00:00Z", true},
		{"milliseconds", "2026-07-28T12:00:00.001Z", true},
		{"nanoseconds", "2026-12-05T23:59:59.123456789Z", true},
		{"one digit", "2026-01-01T00:00:00.5Z", true},
		{"ten digits", "2026-01-01T00:00:00.1234567891Z", false},
		{"a zone", "2026-07-28T12:00:00+02:00", false},
		{"day 29", "2024-02-29T12:00:00Z", false},
		{"month 13", "2026-13-01T12:00:00Z", false},
		{"hour 24", "2026-07-28T24:00:00Z", false},
		{"second 60", "2026-07-28T12:00:60Z", false},
		{"a dot without digits", "2026-07-28T12:00:00.Z", false},
		{"a comma", "2026-07-28T12:00:00,5Z", false},
		{"a letter", "2026-07-2xT12:00:00Z", false},
		{"short", "2026-07-28T12:00Z", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseUTC([]byte(tt.in))
			if ok != tt.ok {
				t.Fatalf("parseUTC(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			}
			if !ok {
				return
			}
			var want time.Time
			if err := want.UnmarshalJSON([]byte(`"` + tt.in + `"`)); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("parseUTC(%q) = %v, UnmarshalJSON %v", tt.in, got, want)
			}
		})
	}
}

// FuzzParseUTC: whatever parseUTC accepts, UnmarshalJSON accepts as the
// same time.
func FuzzParseUTC(f *testing.F) {
	f.Add("2026-07-28T12:00:00.001Z")
	f.Add("2026-02-28T23:59:59Z")
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseUTC([]byte(s))
		if !ok {
			return
		}
		var want time.Time
		if err := want.UnmarshalJSON([]byte(`"` + s + `"`)); err != nil {
			t.Fatalf("parseUTC accepted %q, UnmarshalJSON: %v", s, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parseUTC(%q) = %v, UnmarshalJSON %v", s, got, want)
		}
	})
}
