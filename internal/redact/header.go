package redact

import "strings"

// HeaderSecrets returns the secrets of a header value: the whole value,
// and, when it has the form "Scheme credentials" (a word of letters, a
// space, the rest: "Bearer abc", "Basic dXNlcjpw"), the credentials alone,
// since a server may echo them without the scheme.
func HeaderSecrets(v string) []string {
	out := []string{v}
	scheme, cred, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok || scheme == "" {
		return out
	}
	for _, r := range scheme {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return out
		}
	}
	if cred = strings.TrimSpace(cred); cred != "" {
		out = append(out, cred)
	}
	return out
}
