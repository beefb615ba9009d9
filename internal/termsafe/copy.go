package termsafe

import "reflect"

// The text renderings print what servers and results files say (error
// messages, the server's name, tool names, the scenario's name, probe
// errors, evidence): each renders a copy of its summary whose every string
// is Escape'd (Copy), so that no control character reaches a terminal and
// a line feed in a field shows as \n instead of starting a line of its
// own, and writes what it built through Lines, so that nothing but the
// renderer's own line feeds gets out even from a string the copy missed.

// Copy returns a deep copy of v (a pointer to a summary) whose every
// exported string, map keys included, is escaped. Unexported fields are
// copied as they are (the histograms behind pNN checks).
func Copy[T any](v *T) *T {
	c := escapedValue(reflect.ValueOf(v).Elem())
	out := new(T)
	reflect.ValueOf(out).Elem().Set(c)
	return out
}

// escapedValue returns a copy of v with its strings escaped.
func escapedValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		if e := Escape(v.String()); e != v.String() {
			return reflect.ValueOf(e).Convert(v.Type())
		}
		return v
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		for i := range v.NumField() {
			if c.Field(i).CanSet() {
				c.Field(i).Set(escapedValue(v.Field(i)))
			}
		}
		return c
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(escapedValue(v.Elem()))
		return p
	case reflect.Slice:
		if v.IsNil() || v.Type().Elem().Kind() == reflect.Uint8 {
			return v // bytes (raw JSON) are not text the renderers print
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			c.Index(i).Set(escapedValue(v.Index(i)))
		}
		return c
	case reflect.Array:
		c := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			c.Index(i).Set(escapedValue(v.Index(i)))
		}
		return c
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			c.SetMapIndex(escapedValue(it.Key()), escapedValue(it.Value()))
		}
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(escapedValue(v.Elem()))
		return c
	}
	return v
}
