package toolschema

import (
	"encoding/json"
	"fmt"
)

// Bounds of the arguments Example makes: a schema whose required
// properties refer to the schema itself (a node with ten required children
// of its own kind) would otherwise expand exponentially, and a const,
// default or example the server wrote may be of any size or depth. Past
// any of them Example gives up on the tool's arguments and says why.
const (
	// MaxExampleValues is the most values (objects, arrays and scalars
	// alike) the arguments of one tool may hold.
	MaxExampleValues = 1000
	// MaxExampleBytes is the most bytes of strings and keys they may hold.
	MaxExampleBytes = 16 << 10
	// MaxExampleDepth is the deepest they may nest (a scenario's free-form
	// values may nest 64 levels).
	MaxExampleDepth = 32
)

// ErrTooLarge is what Example returns, wrapped, when a tool's arguments
// would pass the bounds above.
var ErrTooLarge = fmt.Errorf("the arguments its inputSchema asks for are larger than mcpchaos makes "+
	"(%d values, %d bytes of text or %d levels of nesting: a recursive or very large schema); write them by hand",
	MaxExampleValues, MaxExampleBytes, MaxExampleDepth)

// budget counts what Example has made so far.
type budget struct {
	values, bytes int
	over          bool
}

// spend takes n values of b bytes at depth from the budget and reports
// whether they fit.
func (b *budget) spend(values, bytes, depth int) bool {
	b.values += values
	b.bytes += bytes
	if b.values > MaxExampleValues || b.bytes > MaxExampleBytes || depth > MaxExampleDepth {
		b.over = true
	}
	return !b.over
}

// spendValue takes a value the server wrote (a const, default, example or
// enum value) from the budget, walking it no further than the bounds.
func (b *budget) spendValue(v any, depth int) bool {
	if b.over || !b.spend(1, 0, depth) {
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if !b.spend(0, len(k), depth) || !b.spendValue(e, depth+1) {
				return false
			}
		}
	case []any:
		for _, e := range v {
			if !b.spendValue(e, depth+1) {
				return false
			}
		}
	case string:
		return b.spend(0, len(v), depth)
	case json.Number:
		return b.spend(0, len(v), depth)
	}
	return true
}
