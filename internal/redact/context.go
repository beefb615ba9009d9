package redact

import "context"

type ctxKey struct{}

// NewContext returns ctx carrying s: the set a command's outputs go
// through, so code that learns a secret (a scenario it parsed) can add it.
func NewContext(ctx context.Context, s *Set) context.Context {
	return context.WithValue(ctx, ctxKey{}, s)
}

// FromContext returns the set ctx carries, or nil (an empty set that
// ignores Add).
func FromContext(ctx context.Context) *Set {
	s, _ := ctx.Value(ctxKey{}).(*Set)
	return s
}
