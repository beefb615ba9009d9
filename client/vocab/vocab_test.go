package vocab

import "testing"

func TestEraRules(t *testing.T) {
	tests := []struct {
		name                  string
		rev                   string
		revision, modern, old bool
	}{
		{"the first modern revision", Rev20260728, true, true, false},
		{"a later revision is modern", "2027-01-15", true, true, false},
		{"2025-11-25 is legacy", Rev20251125, true, false, true},
		{"2025-06-18 is legacy", Rev20250618, true, false, true},
		{"2025-03-26 is legacy", Rev20250326, true, false, true},
		{"the HTTP+SSE revision is legacy", Rev20241105, true, false, true},
		{"empty is neither", "", false, false, false},
		{"auto is neither", "auto", false, false, false},
		{"letters sort after digits but are no revision", "zzzz-zz-zz", false, false, false},
		{"a date without dashes", "20260728xx", false, false, false},
		{"one day short", "2026-07-2", false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsRevision(tc.rev); got != tc.revision {
				t.Errorf("IsRevision(%q) = %v, want %v", tc.rev, got, tc.revision)
			}
			if got := IsModern(tc.rev); got != tc.modern {
				t.Errorf("IsModern(%q) = %v, want %v", tc.rev, got, tc.modern)
			}
			if got := IsLegacy(tc.rev); got != tc.old {
				t.Errorf("IsLegacy(%q) = %v, want %v", tc.rev, got, tc.old)
			}
		})
	}
}

func TestHeaderRevision(t *testing.T) {
	tests := []struct{ name, header, want string }{
		{"a missing header speaks 2025-03-26", "", Rev20250326},
		{"a header names its revision", Rev20260728, Rev20260728},
		{"garbage is passed on, for the caller to refuse", "x", "x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := HeaderRevision(tc.header); got != tc.want {
				t.Errorf("HeaderRevision(%q) = %q, want %q", tc.header, got, tc.want)
			}
		})
	}
	if !IsLegacy(HeaderRevision("")) {
		t.Error("a request without a version header is not legacy")
	}
}
