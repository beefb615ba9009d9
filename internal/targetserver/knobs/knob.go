package knobs

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Kind is the type of a knob's value, which fixes how it is written, parsed
// and checked.
type Kind int

// Kinds of knob.
const (
	Bool     Kind = iota // true or false
	Prob                 // a float64 probability in [0, 1]
	Float                // a float64 in [Min, Max]
	Int                  // an int in [Min, Max]
	Seed                 // any int64
	Duration             // a time.Duration in [0, Max seconds]
	RateKind             // a Rate of at most Max per period; zero = none
	Enum                 // one of Values; "" means Values[0]
	File                 // a file name, or "-" for standard error; "" = none
)

// Knob is one line of [Table].
type Knob struct {
	Name     string   // scenario key; the serve flag is the same with dashes
	Field    string   // the Config field it sets
	Kind     Kind     //
	Min, Max float64  // Float, Int: the range; Duration: Max in seconds; RateKind: most calls per period
	Values   []string // Enum: the values, the default first
	Negate   bool     // Bool: the field holds the opposite (default true)
	Arg      string   // the flag's value placeholder in --help
	Setting  bool     // a setting, not a misbehaviour: not in the status line's knob list
	// NotInFile is set for a knob that is no key of target.builtin (a
	// scenario sets it elsewhere).
	NotInFile bool
	Doc       string // one line: what it does
}

// Flag returns the knob's `mcpchaos serve` flag name, without dashes in
// front: "leak-on-cancel".
func (k Knob) Flag() string { return strings.ReplaceAll(k.Name, "_", "-") }

// FieldError is a knob value out of its range or malformed.
type FieldError struct {
	Field string // the knob's name, e.g. "leak_on_cancel"
	Value string // the value as written
	Want  string // what is accepted: Knob.Want
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("invalid %s %q: want %s", e.Field, e.Value, e.Want)
}

// Want says which values the knob accepts, for error messages.
func (k Knob) Want() string {
	switch k.Kind {
	case Bool:
		return "true or false"
	case Prob:
		return "a probability from 0 to 1"
	case Float:
		return fmt.Sprintf("a number from %g to %g", k.Min, k.Max)
	case Int:
		return fmt.Sprintf("an integer from %.0f to %.0f", k.Min, k.Max)
	case Seed:
		return "a 64-bit integer"
	case Duration:
		return "a duration from 0 to " + FormatDuration(k.maxDuration())
	case RateKind:
		return fmt.Sprintf("N/PERIOD with N from 1 to %.0f and PERIOD above zero", k.Max)
	case Enum:
		return "one of: " + strings.Join(k.Values, ", ")
	case File:
		return "a file name, or - for standard error"
	}
	return "?"
}

// Type describes the knob's type and range in a few words, for the README.
func (k Knob) Type() string {
	switch k.Kind {
	case Bool:
		return "bool"
	case Prob:
		return "probability"
	case Float:
		return fmt.Sprintf("number, %g..%g", k.Min, k.Max)
	case Int:
		if k.Min == -1<<31 && k.Max == 1<<31-1 {
			return "integer (32-bit)"
		}
		return fmt.Sprintf("integer, %.0f..%.0f", k.Min, k.Max)
	case Seed:
		return "integer"
	case Duration:
		return "duration ≤ " + FormatDuration(k.maxDuration())
	case RateKind:
		return "rate"
	case Enum:
		return "`" + strings.Join(k.Values, "` \\| `") + "`"
	case File:
		return "file name or `-`"
	}
	return "?"
}

// Default returns the default as written in a file or on the command line,
// "" for none.
func (k Knob) Default() string { return k.Format(Config{}) }

func (k Knob) maxDuration() time.Duration { return time.Duration(k.Max * float64(time.Second)) }

// field returns the knob's field of c.
func (k Knob) field(c *Config) reflect.Value {
	f := reflect.ValueOf(c).Elem().FieldByName(k.Field)
	if !f.IsValid() {
		panic("knobs: no Config field " + k.Field + " for knob " + k.Name)
	}
	return f
}

// Set parses text (as written in a file or a flag), checks it and stores it
// in c. The error is a *FieldError, or ParseRate's error for a malformed
// rate.
func (k Knob) Set(c *Config, text string) error {
	bad := &FieldError{Field: k.Name, Value: text, Want: k.Want()}
	s := strings.TrimSpace(text)
	f := k.field(c)
	var v reflect.Value
	switch k.Kind {
	case Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return bad
		}
		v = reflect.ValueOf(b != k.Negate)
	case Prob, Float:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return bad
		}
		v = reflect.ValueOf(x)
	case Int:
		n, err := strconv.Atoi(s)
		if err != nil {
			return bad
		}
		v = reflect.ValueOf(n)
	case Seed:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return bad
		}
		v = reflect.ValueOf(n)
	case Duration:
		d, err := time.ParseDuration(s)
		if err != nil {
			return bad
		}
		v = reflect.ValueOf(d)
	case RateKind:
		if s == "" {
			v = reflect.ValueOf(Rate{})
			break
		}
		r, err := ParseRate(s)
		if err != nil {
			return err // says more than Want: what is wrong with the text
		}
		v = reflect.ValueOf(r)
	case Enum, File:
		v = reflect.ValueOf(s)
	}
	if err := k.check(v); err != nil {
		err.Value = text
		return err
	}
	f.Set(v)
	return nil
}

// check reports a value out of the knob's range.
func (k Knob) check(v reflect.Value) *FieldError {
	ok := true
	switch k.Kind {
	case Prob:
		x := v.Float()
		ok = !math.IsNaN(x) && x >= 0 && x <= 1
	case Float:
		x := v.Float()
		ok = !math.IsNaN(x) && x >= k.Min && x <= k.Max
	case Int:
		x := float64(v.Int())
		ok = x >= k.Min && x <= k.Max
	case Duration:
		d := time.Duration(v.Int())
		ok = d >= 0 && d <= k.maxDuration()
	case RateKind:
		r := v.Interface().(Rate)
		ok = r.IsZero() || (r.Freq > 0 && r.Per > 0 && float64(r.Freq) <= k.Max)
	case Enum:
		s := v.String()
		ok = s == "" || contains(k.Values, s)
	case File:
		ok = !strings.ContainsRune(v.String(), 0)
	}
	if ok {
		return nil
	}
	return &FieldError{Field: k.Name, Value: format(k, v), Want: k.Want()}
}

// Format returns the knob's value in c as Set reads it.
func (k Knob) Format(c Config) string { return format(k, k.field(&c)) }

func format(k Knob, v reflect.Value) string {
	switch k.Kind {
	case Bool:
		return strconv.FormatBool(v.Bool() != k.Negate)
	case Prob, Float:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case Int, Seed:
		return strconv.FormatInt(v.Int(), 10)
	case Duration:
		return FormatDuration(time.Duration(v.Int()))
	case RateKind:
		return v.Interface().(Rate).String()
	case Enum:
		if v.String() == "" {
			return k.Values[0]
		}
		return v.String()
	case File:
		return v.String()
	}
	return ""
}

// IsDefault reports whether the knob has its default value in c.
func (k Knob) IsDefault(c Config) bool { return k.Format(c) == k.Default() }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Validate reports the first knob whose value is out of range, as a
// *FieldError.
func (c Config) Validate() error {
	for _, k := range Table {
		if err := k.check(k.field(&c)); err != nil {
			return err
		}
	}
	return nil
}

// Args returns the `mcpchaos serve` flags that give c, for starting the
// target as a subprocess (a builtin stdio target): one --flag=value for
// each knob that is not at its default.
func (c Config) Args() []string {
	var args []string
	for _, k := range Table {
		if !k.IsDefault(c) {
			args = append(args, "--"+k.Flag()+"="+k.Format(c))
		}
	}
	return args
}

// Summary lists the misbehaviour knobs that are not at their default, for
// a status line: "leak-on-cancel 0.2, endless". It is "" when there are
// none.
func (c Config) Summary() string {
	var on []string
	for _, k := range Table {
		if k.Setting || k.IsDefault(c) {
			continue
		}
		if k.Kind == Bool && !k.Negate {
			on = append(on, k.Flag())
			continue
		}
		on = append(on, k.Flag()+" "+k.Format(c))
	}
	return strings.Join(on, ", ")
}
