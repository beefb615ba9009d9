package scenarios

import (
	"slices"
	"testing"
)

func TestGatewaySection(t *testing.T) {
	for _, tc := range []struct {
		name string
		yaml string
		want []string // nil: no gateway section
	}{
		{name: "absent", yaml: withHead()},
		{name: "one URL", yaml: withHead("gateway: {truth: 'http://127.0.0.1:8080'}"), want: []string{"http://127.0.0.1:8080"}},
		{name: "trailing slash", yaml: withHead("gateway: {truth: 'http://127.0.0.1:8080/'}"), want: []string{"http://127.0.0.1:8080"}},
		{name: "a list", yaml: withHead("gateway:", "  truth: ['http://127.0.0.1:1', 'https://b.example:2']"),
			want: []string{"http://127.0.0.1:1", "https://b.example:2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, "x.yaml", tc.yaml)
			switch {
			case tc.want == nil && s.Gateway != nil:
				t.Fatalf("gateway %+v, want none", s.Gateway)
			case tc.want != nil && (s.Gateway == nil || !slices.Equal(s.Gateway.Truth, tc.want)):
				t.Fatalf("gateway %+v, want truth %v", s.Gateway, tc.want)
			}
		})
	}
}
