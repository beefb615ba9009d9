package scenarios

import (
	"fmt"
	"strings"
)

// Environment references are expanded in target.http.url, the values of
// target.http.headers and target.stdio.env, and the items of
// target.stdio.command, after decoding, so errors keep the value's
// position. The forms are:
//
//	${NAME}            the variable's value; an error when it is unset
//	${NAME:-default}   the default when the variable is unset or empty
//	$${                a literal "${"
//
// A "$" not followed by "{" is left alone, so "$HOME" in a shell command
// reaches the shell unchanged.

// expandEnv expands the references in s using lookup.
func expandEnv(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "$${") {
			b.WriteString("${")
			i += 3
			continue
		}
		if !strings.HasPrefix(s[i:], "${") {
			b.WriteByte(s[i])
			i++
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("unterminated reference %q (want ${NAME} or ${NAME:-default})", clip(s[i:]))
		}
		ref := s[i : i+end+1]
		body := ref[2 : len(ref)-1]
		name, def, hasDef := strings.Cut(body, ":-")
		if !validEnvName(name) {
			return "", fmt.Errorf("invalid reference %q: %q is not a variable name", ref, name)
		}
		val, set := lookup(name)
		switch {
		case set && (val != "" || !hasDef):
			b.WriteString(val)
		case hasDef:
			b.WriteString(def)
		default:
			return "", fmt.Errorf("environment variable %s is not set (write ${%s:-default} for a default)", name, name)
		}
		i += end + 1
	}
	return b.String(), nil
}

// validEnvName reports whether name is [A-Za-z_][A-Za-z0-9_]*.
func validEnvName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// expand expands a decoded value in place, reporting errors at its
// position.
func (d *decoder) expand(v *positioned) bool {
	out, err := expandEnv(v.s, d.lookup)
	if err != nil {
		d.errorf(v.pos, v.path, "%v", err)
		return false
	}
	v.s = out
	return true
}
