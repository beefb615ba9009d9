package summary

import (
	"slices"
	"strings"
	"testing"
)

// TestEveryPlaceholderHasNames: every placeholder segment of the summary's
// keys has its names in the placeholders table, so no map of the summary
// takes any name silently.
func TestEveryPlaceholderHasNames(t *testing.T) {
	var prefixes []string
	for _, p := range placeholders {
		prefixes = append(prefixes, p.prefix)
	}
	for _, k := range KnownKeys() {
		segs := strings.Split(k, ".")
		for i, s := range segs {
			if strings.HasPrefix(s, "<") && !slices.Contains(prefixes, strings.Join(segs[:i+1], ".")) {
				t.Errorf("%s: the placeholder %s has no names (add it to placeholders)", k, strings.Join(segs[:i+1], "."))
			}
		}
	}
	for _, p := range prefixes {
		if !slices.ContainsFunc(KnownKeys(), func(k string) bool { return strings.HasPrefix(k, p) }) {
			t.Errorf("placeholders has %s, which no key has", p)
		}
	}
}
