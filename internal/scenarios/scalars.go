package scenarios

import (
	"math"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// Typed getters for scalar values. Each returns ok=false when the key is
// absent, null or invalid; an invalid value is reported at its position.

// str returns a string value.
func (o *object) str(key string) (string, bool) {
	n, str, ok := o.value(key)
	if !ok {
		return "", false
	}
	s, isStr := stringValue(n, str)
	if !isStr {
		o.errf(key, "want a string, got %s", describe(n))
		return "", false
	}
	return s, true
}

// text returns any scalar as its text, for values with their own syntax
// (durations, rates, enums) where 0 or 2026 are written unquoted.
func (o *object) text(key string) (string, bool) {
	n, _, ok := o.value(key)
	if !ok {
		return "", false
	}
	s, isScalar := scalarText(n)
	if !isScalar {
		o.errf(key, "want a scalar, got %s", describe(n))
		return "", false
	}
	return s, true
}

// integer returns an integer value.
func (o *object) integer(key string) (int64, bool) {
	n, _, ok := o.value(key)
	if !ok {
		return 0, false
	}
	if in, isInt := n.(*ast.IntegerNode); isInt {
		switch v := in.Value.(type) {
		case int64:
			return v, true
		case uint64:
			if v <= math.MaxInt64 {
				return int64(v), true
			}
		}
		o.errf(key, "integer %q is out of range", tokenText(n))
		return 0, false
	}
	if s, isStr := n.(*ast.StringNode); isStr && isPlain(s) {
		if _, err := strconv.ParseInt(s.Value, 10, 64); err != nil && looksNumeric(s.Value) {
			o.errf(key, "integer %q is out of range", s.Value)
			return 0, false
		}
	}
	o.errf(key, "want an integer, got %s", describe(n))
	return 0, false
}

// number returns an integer or a float value. Infinity and NaN are
// rejected.
func (o *object) number(key string) (float64, bool) {
	n, _, ok := o.value(key)
	if !ok {
		return 0, false
	}
	switch v := n.(type) {
	case *ast.IntegerNode:
		switch i := v.Value.(type) {
		case int64:
			return float64(i), true
		case uint64:
			return float64(i), true
		}
	case *ast.FloatNode:
		if !math.IsNaN(v.Value) && !math.IsInf(v.Value, 0) {
			return v.Value, true
		}
	case *ast.StringNode:
		// goccy reads some plain numbers (1e3, 1e-2) as strings.
		if isPlain(v) && looksNumeric(v.Value) {
			if f, err := strconv.ParseFloat(v.Value, 64); err == nil && !math.IsInf(f, 0) {
				return f, true
			}
		}
	}
	o.errf(key, "want a number, got %s", describe(n))
	return 0, false
}

// isPlain reports whether a string node was written without quotes.
func isPlain(s *ast.StringNode) bool {
	return s.Token != nil && s.Token.Type == token.StringType
}

// looksNumeric reports whether s is made of digits, signs, dots and
// exponents only.
func looksNumeric(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789+-.eE", r) {
			return false
		}
	}
	return true
}

// boolean returns a boolean value.
func (o *object) boolean(key string) (bool, bool) {
	n, _, ok := o.value(key)
	if !ok {
		return false, false
	}
	b, isBool := n.(*ast.BoolNode)
	if !isBool {
		o.errf(key, "want true or false, got %s", describe(n))
		return false, false
	}
	return b.Value, true
}

// parsed returns a scalar value parsed by parse; its error is reported at
// the value.
func parsed[T any](o *object, key string, parse func(string) (T, error)) (T, bool) {
	var zero T
	s, ok := o.text(key)
	if !ok {
		return zero, false
	}
	v, err := parse(s)
	if err != nil {
		o.errf(key, "%v", err)
		return zero, false
	}
	return v, true
}
